// AVX2 twins of the elementwise ops in ops.c that show up in profiles (SwiGLU's expf: ~8% of a
// SmolLM2 prefill when scalar). Not bit-identical to libm: exp is a degree-6 polynomial after
// range reduction, within ~2 ulp (OpsTests bound it against fp64).
#pragma STDC FP_CONTRACT OFF

#include <immintrin.h>
#include "ck_ops.h"

#define T256 __attribute__((target("avx2,fma")))

/// e^x: +inf above 88 (e^88.72 overflows fp32), inputs below -87 clamped there (e^x would be
/// subnormal; silu only needs it next to 1).
/// x = n ln2 + r with |r| <= ln2/2 (ln2 split in two so n ln2 is exact to ~2^-40); e^r by its
/// Taylor series to r^6 (truncation < 2e-7 relative at |r| = 0.347); times 2^n built in the
/// exponent field.
T256 static inline __m256 exp_avx2(__m256 x) {
    const __m256 overflow = _mm256_cmp_ps(x, _mm256_set1_ps(88.0f), _CMP_GT_OQ);
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.0f)), _mm256_set1_ps(88.0f));
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145751953125f), x);       // ln2 high bits
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.428606765330187045e-06f), r);       // ln2 - high
    __m256 p = _mm256_set1_ps(1.0f / 720.0f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    const __m256i scale = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_blendv_ps(_mm256_mul_ps(p, _mm256_castsi256_ps(scale)), _mm256_set1_ps(__builtin_inff()), overflow);
}

T256 void ck_swiglu_avx2(float *gate, const float *up, int64_t n) {
    const __m256 one = _mm256_set1_ps(1.0f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 g = _mm256_loadu_ps(gate + i);
        const __m256 e = exp_avx2(_mm256_sub_ps(_mm256_setzero_ps(), g));
        const __m256 silu = _mm256_div_ps(g, _mm256_add_ps(one, e));
        _mm256_storeu_ps(gate + i, _mm256_mul_ps(silu, _mm256_loadu_ps(up + i)));
    }
    if (i < n) ck_swiglu_ref(gate + i, up + i, n - i);
}
