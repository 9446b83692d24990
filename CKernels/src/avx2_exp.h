// Private: the one vectorised exp of the AVX2 code (SwiGLU in ops_avx2.c, softmax in
// attention_tiled.c).
#ifndef CK_AVX2_EXP_H
#define CK_AVX2_EXP_H

#include <immintrin.h>

/// e^x, 8 lanes: Cephes' expf polynomial after x = n ln2 + r (ln2 split in two), about 1 ulp.
/// Inputs below -87 are clamped there (e^x would be subnormal; callers only add it to or weigh
/// it against values near 1); inputs above 88 give +inf (e^88.72 overflows fp32).
__attribute__((target("avx2,fma"))) static inline __attribute__((always_inline)) __m256 ck_exp_avx2(__m256 x) {
    const __m256 overflow = _mm256_cmp_ps(x, _mm256_set1_ps(88.0f), _CMP_GT_OQ);
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.0f)), _mm256_set1_ps(88.0f));
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_blendv_ps(_mm256_mul_ps(p, _mm256_castsi256_ps(e)), _mm256_set1_ps(__builtin_inff()), overflow);
}

#endif
