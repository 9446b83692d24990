// AVX2 twins of the elementwise ops in ops.c that show up in profiles (SwiGLU's expf: ~8% of a
// SmolLM2 prefill when scalar; GeGLU's scalar fp16 rounding and lookup: ~9% of a Gemma 3 one).
// All are bit-identical to their references: SwiGLU's exp is ck_exp_avx2 (avx2_exp.h), which the
// reference runs one lane at a time (exp_scalar.h); GeGLU, the four-vector RMSNorm and the KV
// cache stores (the fp16 row conversion and the Q8_0 row quantizer) do the reference's operations.
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: AVX2 / AVX-512 / AMX intrinsics

#include <immintrin.h>
#include <math.h>
#include "ck_ops.h"
#include "avx2_exp.h"
#include "avx2_reduce.h"
#include "ck_convert.h"

#define T256 __attribute__((target("avx2,fma,f16c")))

T256 void ck_swiglu_avx2(float *gate, const float *up, int64_t n) {
    const __m256 one = _mm256_set1_ps(1.0f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 g = _mm256_loadu_ps(gate + i);
        const __m256 e = ck_exp_avx2(_mm256_sub_ps(_mm256_setzero_ps(), g));
        const __m256 silu = _mm256_div_ps(g, _mm256_add_ps(one, e));
        _mm256_storeu_ps(gate + i, _mm256_mul_ps(silu, _mm256_loadu_ps(up + i)));
    }
    if (i < n) ck_swiglu_ref(gate + i, up + i, n - i);
}

/// Same three cases as ck_geglu_ref, 8 lanes at a time: F16C's round-to-nearest-even conversion
/// gives the same fp16 bits as ck_fp32_to_fp16 (NaN payloads included), which index the fp32
/// table by a gather; the lanes <= -10 and >= 10 are blended in afterwards.
T256 void ck_geglu_avx2(float *gate, const float *up, int64_t n) {
    const float *table = ck_gelu_table();
    const __m256 lo = _mm256_set1_ps(-10.0f), hi = _mm256_set1_ps(10.0f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 g = _mm256_loadu_ps(gate + i), u = _mm256_loadu_ps(up + i);
        const __m256i h = _mm256_cvtepu16_epi32(_mm256_cvtps_ph(g, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        __m256 y = _mm256_mul_ps(_mm256_i32gather_ps(table, h, 4), u);
        y = _mm256_blendv_ps(y, _mm256_mul_ps(g, u), _mm256_cmp_ps(g, hi, _CMP_GE_OQ));
        y = _mm256_blendv_ps(y, _mm256_setzero_ps(), _mm256_cmp_ps(g, lo, _CMP_LE_OQ));
        _mm256_storeu_ps(gate + i, y);
    }
    if (i < n) ck_geglu_ref(gate + i, up + i, n - i);
}

/// ck_rms_norm of the four vectors x + v*width (v = 0..3) into y + v*width: the reference's sum
/// of squares is a chain of dependent double adds (~4 cycles per element); here each of four
/// double lanes runs one vector's chain in the reference's order (a 4x4 transpose brings element
/// i of the four vectors into one register), so the four chains overlap and every result is
/// bit-identical. The products of two floats are exact in double, as in the reference.
T256 void ck_rms_norm4_avx2(const float *x, const float *w, float *y, int64_t width, float eps) {
    __m256d acc = _mm256_setzero_pd();
    for (int64_t i = 0; i < width; i += 4) {
        __m128 a = _mm_loadu_ps(x + i), b = _mm_loadu_ps(x + width + i);
        __m128 c = _mm_loadu_ps(x + 2 * width + i), d = _mm_loadu_ps(x + 3 * width + i);
        _MM_TRANSPOSE4_PS(a, b, c, d);   // a = element i of the four vectors, b = element i + 1, ...
        const __m128 e[4] = {a, b, c, d};
        for (int j = 0; j < 4; j++) {
            const __m256d t = _mm256_cvtps_pd(e[j]);
            acc = _mm256_add_pd(acc, _mm256_mul_pd(t, t));
        }
    }
    double sums[4];
    _mm256_storeu_pd(sums, acc);
    for (int v = 0; v < 4; v++) {
        const float scale = 1.0f / sqrtf((float)(sums[v] / (double)width) + eps);
        const float *xv = x + v * width;
        float *yv = y + v * width;
        const __m256 sv = _mm256_set1_ps(scale);
        int64_t i = 0;
        for (; i + 8 <= width; i += 8)
            _mm256_storeu_ps(yv + i, _mm256_mul_ps(_mm256_mul_ps(_mm256_loadu_ps(xv + i), sv), _mm256_loadu_ps(w + i)));
        for (; i < width; i++) yv[i] = xv[i] * scale * w[i];
    }
}

void ck_rms_norm_vectors_avx2(const float *x, const float *w, float *y, int64_t count, int64_t width, float eps) {
    int64_t v = 0;
    if (width % 4 == 0)
        for (; v + 4 <= count; v += 4) ck_rms_norm4_avx2(x + v * width, w, y + v * width, width, eps);
    ck_rms_norm_vectors_ref(x + v * width, w, y + v * width, count - v, width, eps);
}

/// fp32 -> IEEE half bits for n values: F16C's round-to-nearest-even conversion, which gives the
/// same bits as ck_fp32_to_fp16 (overflow to infinity, NaN quieted with its top payload bits).
T256 void ck_fp32_to_fp16_row_avx2(const float *x, ck_half *h, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(h + i), _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    for (; i < n; i++) h[i] = ck_fp32_to_fp16(x[i]);
}

/// ck_kv_quantize_row_q8_0_ref, 8 lanes at a time with the same fp32 operations: amax by max
/// (the reference's fmaxf; a NaN value is skipped by both, as max_ps returns its second operand
/// then), d and 1 / d as scalars, v = x * (1 / d), and roundf's halves away from zero as
/// t = trunc(v), plus sign(v) where |v - t| >= 0.5 (v - t is exact, so no double rounding).
T256 void ck_kv_quantize_row_q8_0_avx2(const float *x, ck_block_q8_0 *y, int64_t n) {
    const __m256 sign_bit = _mm256_set1_ps(-0.0f), half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f);
    // packs_epi32 / packs_epi16 interleave 128-bit halves; this puts the 32 codes back in order.
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (int64_t b = 0; b < n / 32; b++, x += 32) {
        __m256 v[4], mx = _mm256_setzero_ps();
        for (int c = 0; c < 4; c++) {
            v[c] = _mm256_loadu_ps(x + 8 * c);
            mx = _mm256_max_ps(_mm256_andnot_ps(sign_bit, v[c]), mx);
        }
        const float amax = ck_hmax256(mx), d = amax / 127.0f, id = d != 0 ? 1.0f / d : 0.0f;
        y[b].d = ck_fp32_to_fp16(d);
        const __m256 idv = _mm256_set1_ps(id);
        __m256i q[4];
        for (int c = 0; c < 4; c++) {
            const __m256 s = _mm256_mul_ps(v[c], idv);
            const __m256 t = _mm256_round_ps(s, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
            const __m256 up = _mm256_cmp_ps(_mm256_andnot_ps(sign_bit, _mm256_sub_ps(s, t)), half, _CMP_GE_OQ);
            const __m256 step = _mm256_and_ps(up, _mm256_or_ps(one, _mm256_and_ps(sign_bit, s)));
            q[c] = _mm256_cvttps_epi32(_mm256_add_ps(t, step));
        }
        const __m256i q16 = _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
        _mm256_storeu_si256((__m256i *)y[b].qs, _mm256_permutevar8x32_epi32(q16, order));
    }
}
#endif
