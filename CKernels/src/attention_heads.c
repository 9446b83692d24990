// Attention one (query row, head) pair at a time (attention_heads.h): scores q·k over the visible
// positions, softmax, weighted sum of v. fp16 rows have an AVX2/F16C kernel (head_dim a multiple
// of 8: 64 and 256 for our models), whose order ref follows (ck_attention_head_f16_ref,
// attention_ref.c); the block formats decode each position's head segment to fp32 first, with
// the same scalar kernel on every path.
#pragma STDC FP_CONTRACT OFF
#include <math.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include "ck_ops.h"
#include "ck_matmul.h"
#include "attention_heads.h"
#if defined(__x86_64__)
#include "avx2_exp.h"
#include "avx2_reduce.h"
#endif
#include "exp_scalar.h"



/// Decodes the head segment of position p of `base` (K or V) into tmp.
static const float *decode(const head_job *j, const uint8_t *base, int64_t p) {
    ck_kv_load_row(j->format, base + p * j->row_bytes, j->tmp, j->head_dim);
    return j->tmp;
}

/// Softmax of w[first..last] in place; returns 1/sum so the caller can fold it into the output.
static float softmax_in_place(float *w, int64_t first, int64_t last, float max) {
    double sum = 0;
    for (int64_t p = first; p <= last; p++) {
        w[p] = ck_exp_scalar(w[p] - max);
        sum += w[p];
    }
    return (float)(1.0 / sum);
}

void ck_attention_head_ref(const head_job *j) {
    float max = -INFINITY;
    for (int64_t p = j->first; p <= j->last; p++) {
        const float *kp = decode(j, j->k, p);
        float dot = 0;
        for (int64_t d = 0; d < j->head_dim; d++) dot += j->q[d] * kp[d];
        j->w[p] = dot;
        if (dot > max) max = dot;
    }
    const float inv = softmax_in_place(j->w, j->first, j->last, max);
    for (int64_t d = 0; d < j->head_dim; d++) j->out[d] = 0;
    for (int64_t p = j->first; p <= j->last; p++) {
        const float wp = j->w[p] * inv;
        const float *vp = decode(j, j->v, p);
        for (int64_t d = 0; d < j->head_dim; d++) j->out[d] += wp * vp[d];
    }
}

#if defined(__x86_64__)   // the AVX2/F16C per-head kernel
__attribute__((target("avx2,fma,f16c")))
static inline __m256 load_half8(const uint8_t *p) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)); }

/// w[first..last] = e^(w - max) with the vector exp (as the blocked prefill kernel's softmax);
/// returns 1 / their sum. Whole groups of 8 in place, the tail through a padded copy.
__attribute__((target("avx2,fma,f16c")))
static float softmax_avx2(float *w, int64_t first, int64_t last, float max) {
    const __m256 mx = _mm256_set1_ps(max);
    __m256 sum = _mm256_setzero_ps();
    int64_t p = first;
    for (; p + 8 <= last + 1; p += 8) {
        const __m256 e = ck_exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(w + p), mx));
        _mm256_storeu_ps(w + p, e);
        sum = _mm256_add_ps(sum, e);
    }
    float tail[8] = {0};
    const int left = (int)(last + 1 - p);
    if (left > 0) {
        for (int i = 0; i < left; i++) tail[i] = w[p + i];
        __m256 e = ck_exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(tail), mx));
        _mm256_storeu_ps(tail, e);
        for (int i = 0; i < left; i++) { w[p + i] = tail[i]; }
        for (int i = left; i < 8; i++) tail[i] = 0;
        sum = _mm256_add_ps(sum, _mm256_loadu_ps(tail));
    }
    return 1.0f / ck_hsum256(sum);
}

/// Output dimensions accumulated per pass over the positions: 8 registers of 8 lanes.
#define CK_V_CHUNK 64

/// fp16 rows (head_dim a multiple of 8; others go to the scalar kernel). Scores (eight positions per pass), vector softmax,
/// then the weighted sum of V with the positions in the outer loop, so each pass reads
/// CK_V_CHUNK contiguous values of every row (one or two cache lines) instead of 8 values per
/// row per pass.
__attribute__((target("avx2,fma,f16c")))
void ck_attention_head_f16_avx2(const head_job *j) {
    const int64_t hd = j->head_dim;
    if (hd % 8 != 0) { ck_attention_head_ref(j); return; }
    float max = -INFINITY;
    int64_t p0 = j->first;
    // Eight positions at a time: eight independent FMA chains, then one transposing reduction
    // (hadd tree) gives their eight scores in one register.
    __m256 vmax = _mm256_set1_ps(-INFINITY);
    for (; p0 + 8 <= j->last + 1; p0 += 8) {
        const uint8_t *kp = j->k + p0 * j->row_bytes;
        __m256 acc[8];
        for (int i = 0; i < 8; i++) acc[i] = _mm256_setzero_ps();
        for (int64_t d = 0; d < hd; d += 8) {
            const __m256 qv = _mm256_loadu_ps(j->q + d);
            for (int i = 0; i < 8; i++) acc[i] = _mm256_fmadd_ps(qv, load_half8(kp + i * j->row_bytes + 2 * d), acc[i]);
        }
        const __m256 h0 = _mm256_hadd_ps(acc[0], acc[1]), h1 = _mm256_hadd_ps(acc[2], acc[3]);
        const __m256 h2 = _mm256_hadd_ps(acc[4], acc[5]), h3 = _mm256_hadd_ps(acc[6], acc[7]);
        const __m256 u0 = _mm256_hadd_ps(h0, h1), u1 = _mm256_hadd_ps(h2, h3);   // [0..3 lo | 0..3 hi], [4..7 lo | hi]
        const __m256 dots = _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31));
        _mm256_storeu_ps(j->w + p0, dots);
        vmax = _mm256_max_ps(vmax, dots);
    }
    {
        float lanes[8];
        _mm256_storeu_ps(lanes, vmax);
        for (int i = 0; i < 8; i++) if (lanes[i] > max) max = lanes[i];
    }
    for (int64_t p = p0; p <= j->last; p++) {
        const uint8_t *kp = j->k + p * j->row_bytes;
        __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
        int64_t d = 0;
        for (; d + 16 <= hd; d += 16) {
            acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(j->q + d), load_half8(kp + 2 * d), acc0);
            acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(j->q + d + 8), load_half8(kp + 2 * d + 16), acc1);
        }
        for (; d < hd; d += 8) acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(j->q + d), load_half8(kp + 2 * d), acc0);
        const float dot = ck_hsum256(_mm256_add_ps(acc0, acc1));
        j->w[p] = dot;
        if (dot > max) max = dot;
    }
    const __m256 inv = _mm256_set1_ps(softmax_avx2(j->w, j->first, j->last, max));
    for (int64_t d0 = 0; d0 < hd; d0 += CK_V_CHUNK) {
        const int n8 = (int)((hd - d0 < CK_V_CHUNK ? hd - d0 : CK_V_CHUNK) / 8);
        __m256 acc[CK_V_CHUNK / 8];
        for (int i = 0; i < CK_V_CHUNK / 8; i++) acc[i] = _mm256_setzero_ps();
        const uint8_t *vp = j->v + j->first * j->row_bytes + 2 * d0;
        if (n8 == CK_V_CHUNK / 8) {
            for (int64_t p = j->first; p <= j->last; p++, vp += j->row_bytes) {
                const __m256 wp = _mm256_set1_ps(j->w[p]);
                for (int i = 0; i < CK_V_CHUNK / 8; i++) acc[i] = _mm256_fmadd_ps(wp, load_half8(vp + 16 * i), acc[i]);
            }
        } else {
            for (int64_t p = j->first; p <= j->last; p++, vp += j->row_bytes) {
                const __m256 wp = _mm256_set1_ps(j->w[p]);
                for (int i = 0; i < n8; i++) acc[i] = _mm256_fmadd_ps(wp, load_half8(vp + 16 * i), acc[i]);
            }
        }
        for (int i = 0; i < n8; i++) _mm256_storeu_ps(j->out + d0 + 8 * i, _mm256_mul_ps(acc[i], inv));
    }
}
#endif

typedef struct {
    const ck_attention_desc *d;
    void (*fn)(const head_job *);
} job;

/// Byte offset of KV head g inside a row.
static int64_t head_offset(const ck_attention_desc *d, int64_t g) {
    return ck_kv_row_bytes(d->format, g * d->head_dim);
}

static void run(void *ctx, int t, int nthreads) {
    const job *jb = ctx;
    const ck_attention_desc *d = jb->d;
    const int64_t pairs = d->rows * d->heads, group = d->heads / d->kv_heads;
    const int64_t start = pairs * t / nthreads, end = pairs * (t + 1) / nthreads;
    float *scratch = d->scratch + (int64_t)t * d->scratch_stride;
    for (int64_t i = start; i < end; i++) {
        const int64_t r = i / d->heads, h = i % d->heads, g = h / group;
        const int64_t last = d->positions[r];
        const int64_t first = d->window > 0 && last - d->window + 1 > 0 ? last - d->window + 1 : 0;
        const head_job j = {
            .q = d->q + r * d->q_stride + h * d->head_dim,
            .k = d->k + head_offset(d, g), .v = d->v + head_offset(d, g),
            .row_bytes = d->row_bytes, .head_dim = d->head_dim, .first = first, .last = last, .format = d->format,
            .w = scratch, .tmp = scratch + (d->scratch_stride - d->head_dim),
            .out = d->out + r * d->out_stride + h * d->head_dim,
        };
        jb->fn(&j);
    }
}

void ck_attention_heads(const ck_attention_desc *d, int nthreads, const ck_path_kernels *k) {
    job jb = {d, k->attention_head[d->format]};
    const int64_t pairs = d->rows * d->heads;
    if (nthreads > pairs) nthreads = (int)pairs;
    ck_parallel(run, &jb, nthreads < 1 ? 1 : nthreads);
}
