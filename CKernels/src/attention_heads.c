// The per-head attention kernel (attention_heads.h): one decoded query row over a short fp16
// context, one query head at a time: scores q·k over the visible positions, softmax, weighted sum
// of v. The AVX2/F16C kernel's order is the one ref (ck_attention_head_f16_ref, attention_ref.c)
// and NEON (attention_head_neon.c) follow, so every path gives its bits.
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

#if defined(__x86_64__)   // the AVX2/F16C per-head kernel
__attribute__((target("avx2,fma,f16c")))
static inline __m256 load_half8(const uint8_t *p) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)); }

/// w[0..n) = e^(w - max) with the vector exp (as the blocked prefill kernel's softmax); returns
/// 1 / their sum. Whole groups of 8 in place, the tail through a padded copy.
__attribute__((target("avx2,fma,f16c")))
static float softmax_avx2(float *w, int64_t n, float max) {
    const __m256 mx = _mm256_set1_ps(max);
    __m256 sum = _mm256_setzero_ps();
    int64_t p = 0;
    for (; p + 8 <= n; p += 8) {
        const __m256 e = ck_exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(w + p), mx));
        _mm256_storeu_ps(w + p, e);
        sum = _mm256_add_ps(sum, e);
    }
    const int left = (int)(n - p);
    if (left > 0) {
        float tail[8] = {0};
        for (int i = 0; i < left; i++) tail[i] = w[p + i];
        _mm256_storeu_ps(tail, ck_exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(tail), mx)));
        for (int i = 0; i < left; i++) w[p + i] = tail[i];
        for (int i = left; i < 8; i++) tail[i] = 0;
        sum = _mm256_add_ps(sum, _mm256_loadu_ps(tail));
    }
    return 1.0f / ck_hsum256(sum);
}

/// Output dimensions accumulated per pass over the positions: 8 registers of 8 lanes.
#define CK_V_CHUNK 64

/// Scores (eight positions per pass), vector softmax, then the weighted sum of V with the
/// positions in the outer loop, so each pass reads CK_V_CHUNK contiguous values of every row (one
/// or two cache lines) instead of 8 values per row per pass.
__attribute__((target("avx2,fma,f16c")))
void ck_attention_head_f16_avx2(const head_job *j) {
    const int64_t hd = j->head_dim, n = j->n, rb = j->row_bytes;
    float max = -INFINITY;
    int64_t p0 = 0;
    // Eight positions at a time: eight independent FMA chains, then one transposing reduction
    // (hadd tree) gives their eight scores in one register.
    __m256 vmax = _mm256_set1_ps(-INFINITY);
    for (; p0 + 8 <= n; p0 += 8) {
        const uint8_t *kp = j->k + p0 * rb;
        __m256 acc[8];
        for (int i = 0; i < 8; i++) acc[i] = _mm256_setzero_ps();
        for (int64_t d = 0; d < hd; d += 8) {
            const __m256 qv = _mm256_loadu_ps(j->q + d);
            for (int i = 0; i < 8; i++) acc[i] = _mm256_fmadd_ps(qv, load_half8(kp + i * rb + 2 * d), acc[i]);
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
    // The last positions: two chains (the lower and upper eight dims of each 16), added.
    for (int64_t p = p0; p < n; p++) {
        const uint8_t *kp = j->k + p * rb;
        __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
        int64_t d = 0;
        for (; d + 16 <= hd; d += 16) {
            acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(j->q + d), load_half8(kp + 2 * d), acc0);
            acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(j->q + d + 8), load_half8(kp + 2 * d + 16), acc1);
        }
        if (d < hd) acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(j->q + d), load_half8(kp + 2 * d), acc0);
        const float dot = ck_hsum256(_mm256_add_ps(acc0, acc1));
        j->w[p] = dot;
        if (dot > max) max = dot;
    }
    const __m256 inv = _mm256_set1_ps(softmax_avx2(j->w, n, max));
    for (int64_t d0 = 0; d0 < hd; d0 += CK_V_CHUNK) {
        const int n8 = (int)((hd - d0 < CK_V_CHUNK ? hd - d0 : CK_V_CHUNK) / 8);
        __m256 acc[CK_V_CHUNK / 8];
        for (int i = 0; i < CK_V_CHUNK / 8; i++) acc[i] = _mm256_setzero_ps();
        const uint8_t *vp = j->v + 2 * d0;
        if (n8 == CK_V_CHUNK / 8) {
            for (int64_t p = 0; p < n; p++, vp += rb) {
                const __m256 wp = _mm256_set1_ps(j->w[p]);
                for (int i = 0; i < CK_V_CHUNK / 8; i++) acc[i] = _mm256_fmadd_ps(wp, load_half8(vp + 16 * i), acc[i]);
            }
        } else {
            for (int64_t p = 0; p < n; p++, vp += rb) {
                const __m256 wp = _mm256_set1_ps(j->w[p]);
                for (int i = 0; i < n8; i++) acc[i] = _mm256_fmadd_ps(wp, load_half8(vp + 16 * i), acc[i]);
            }
        }
        for (int i = 0; i < n8; i++) _mm256_storeu_ps(j->out + d0 + 8 * i, _mm256_mul_ps(acc[i], inv));
    }
}
#endif

int64_t ck_attention_heads_scratch_floats(int64_t capacity, int64_t head_dim) {
    const int64_t n = capacity < CK_SPLIT_MIN_POSITIONS ? capacity : CK_SPLIT_MIN_POSITIONS;
    return n + head_dim;   // w [n], tmp [head_dim]
}

typedef struct {
    const ck_attention_desc *rows;   // one decoded row each
    int64_t count;
    int64_t units;                   // (row, head) units: the rows' heads summed
    const ck_path_kernels *k;
} job;

/// Thread t's share of the (row, query head) units: one contiguous run of them, rows in order
/// and each row's heads in order, so a thread takes the query heads that share a KV head one
/// after another and reads that head's K and V rows from its own L1 (units handed out one at a
/// time alternate between the threads, and each thread then pulls every KV head from L3). Each
/// unit is computed alone, so neither the thread count nor the other rows change a sum.
static void run(void *ctx, int t, int nthreads) {
    const job *jb = ctx;
    const int64_t from = jb->units * t / nthreads, to = jb->units * (t + 1) / nthreads;
    int64_t base = 0;
    for (int64_t i = 0; i < jb->count && base < to; base += jb->rows[i].heads, i++) {
        const ck_attention_desc *d = &jb->rows[i];
        const int64_t group = d->heads / d->kv_heads, last = d->positions[0];
        const int64_t first = d->window > 0 && last - d->window + 1 > 0 ? last - d->window + 1 : 0, n = last - first + 1;
        float *scratch = d->scratch + (int64_t)t * d->scratch_stride;
        const int64_t h0 = from > base ? from - base : 0, h1 = to - base < d->heads ? to - base : d->heads;
        for (int64_t h = h0; h < h1; h++) {
            const int64_t at = first * d->row_bytes + ck_kv_row_bytes(d->format, h / group * d->head_dim);
            const head_job j = {
                .q = d->q + h * d->head_dim, .k = d->k + at, .v = d->v + at,
                .row_bytes = d->row_bytes, .head_dim = d->head_dim, .n = n,
                .w = scratch, .tmp = scratch + n, .out = d->out + h * d->head_dim,
            };
            jb->k->attention_head_f16(&j);
        }
    }
}

void ck_attention_heads(const ck_attention_desc *rows, int64_t count, int nthreads, const ck_path_kernels *k) {
    job jb = {rows, count, 0, k};
    for (int64_t i = 0; i < count; i++) jb.units += rows[i].heads;
    if (nthreads > jb.units) nthreads = (int)jb.units;
    ck_parallel(run, &jb, nthreads < 1 ? 1 : nthreads);
}
