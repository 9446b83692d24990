// Grouped-query attention over an fp16 KV cache (ck_ops.h). One (query row, head) pair is the
// unit of work: scores q·k over the visible positions, softmax, weighted sum of v. The AVX2 twin
// converts fp16 with F16C 8 lanes at a time; head_dim must then be a multiple of 8 (64 and 256
// for our models), otherwise the reference runs.
#include <math.h>
#include <immintrin.h>
#include "ck_ops.h"
#include "ck_convert.h"
#include "ck_matmul.h"

typedef void (*head_fn)(const float *q, const ck_half *k, const ck_half *v, int64_t kv_stride, int64_t head_dim,
                        int64_t first, int64_t last, float *w, float *out);

/// Softmax of w[first..last] in place; returns 1/sum so the caller can fold it into the output.
static float softmax_in_place(float *w, int64_t first, int64_t last, float max) {
    double sum = 0;
    for (int64_t p = first; p <= last; p++) {
        w[p] = expf(w[p] - max);
        sum += w[p];
    }
    return (float)(1.0 / sum);
}

static void head_ref(const float *q, const ck_half *k, const ck_half *v, int64_t kv_stride, int64_t head_dim,
                     int64_t first, int64_t last, float *w, float *out) {
    float max = -INFINITY;
    for (int64_t p = first; p <= last; p++) {
        const ck_half *kp = k + p * kv_stride;
        float dot = 0;
        for (int64_t d = 0; d < head_dim; d++) dot += q[d] * ck_fp16_to_fp32(kp[d]);
        w[p] = dot;
        if (dot > max) max = dot;
    }
    const float inv = softmax_in_place(w, first, last, max);
    for (int64_t d = 0; d < head_dim; d++) out[d] = 0;
    for (int64_t p = first; p <= last; p++) {
        const float wp = w[p] * inv;
        const ck_half *vp = v + p * kv_stride;
        for (int64_t d = 0; d < head_dim; d++) out[d] += wp * ck_fp16_to_fp32(vp[d]);
    }
}

__attribute__((target("avx2,fma,f16c")))
static inline float hsum256(__m256 x) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

__attribute__((target("avx2,fma,f16c")))
static void head_avx2(const float *q, const ck_half *k, const ck_half *v, int64_t kv_stride, int64_t head_dim,
                      int64_t first, int64_t last, float *w, float *out) {
    float max = -INFINITY;
    for (int64_t p = first; p <= last; p++) {
        const ck_half *kp = k + p * kv_stride;
        __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
        int64_t d = 0;
        for (; d + 16 <= head_dim; d += 16) {
            acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + d), _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(kp + d))), acc0);
            acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(q + d + 8), _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(kp + d + 8))), acc1);
        }
        for (; d < head_dim; d += 8)
            acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + d), _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(kp + d))), acc0);
        const float dot = hsum256(_mm256_add_ps(acc0, acc1));
        w[p] = dot;
        if (dot > max) max = dot;
    }
    const float inv = softmax_in_place(w, first, last, max);
    for (int64_t d = 0; d < head_dim; d += 8) {
        __m256 acc = _mm256_setzero_ps();
        for (int64_t p = first; p <= last; p++) {
            const __m256 vp = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(v + p * kv_stride + d)));
            acc = _mm256_fmadd_ps(_mm256_set1_ps(w[p]), vp, acc);
        }
        _mm256_storeu_ps(out + d, _mm256_mul_ps(acc, _mm256_set1_ps(inv)));
    }
}

typedef struct {
    const ck_attention_desc *d;
    head_fn fn;
} job;

static void run(void *ctx, int t, int nthreads) {
    const job *j = ctx;
    const ck_attention_desc *d = j->d;
    const int64_t pairs = d->rows * d->heads, group = d->heads / d->kv_heads;
    const int64_t start = pairs * t / nthreads, end = pairs * (t + 1) / nthreads;
    float *w = d->scratch + (int64_t)t * d->scratch_stride;
    for (int64_t i = start; i < end; i++) {
        const int64_t r = i / d->heads, h = i % d->heads, g = h / group;
        const int64_t last = d->positions[r];
        const int64_t first = d->window > 0 && last - d->window + 1 > 0 ? last - d->window + 1 : 0;
        j->fn(d->q + r * d->q_stride + h * d->head_dim, d->k + g * d->head_dim, d->v + g * d->head_dim, d->kv_stride,
              d->head_dim, first, last, w, d->out + r * d->out_stride + h * d->head_dim);
    }
}

void ck_attention(const ck_attention_desc *d, int nthreads) {
    job j = {d, head_ref};
    if (ck_kernel_path_get() != CK_PATH_REF && d->head_dim % 8 == 0) j.fn = head_avx2;
    const int64_t pairs = d->rows * d->heads;
    if (nthreads > pairs) nthreads = (int)pairs;
    ck_parallel(run, &j, nthreads < 1 ? 1 : nthreads);
}
