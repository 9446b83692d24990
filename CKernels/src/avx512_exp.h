// Private: the one vectorised exp of the AVX-512 code (the split-K units' softmax in
// attention_split_avx512.h, the blocked prefill's in attention_tiles_avx512.c), under
// avx512_target.h's native or SIMDe switch.
#ifndef CK_AVX512_EXP_H
#define CK_AVX512_EXP_H

#include "avx512_target.h"

/// e^x, 16 lanes: ck_exp_avx2's steps lane for lane (the same bits): Cephes' expf polynomial
/// after x = n ln2 + r, n rounded to nearest even, inputs clamped to [-87, 88], +inf above 88.
T512 INLINE __m512 exp16(__m512 x) {
    const __mmask16 overflow = _mm512_cmp_ps_mask(x, _mm512_set1_ps(88.0f), _CMP_GT_OQ);
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.0f)), _mm512_set1_ps(88.0f));
    const __m512i ni = _mm512_cvtps_epi32(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)));
    const __m512 n = _mm512_cvtepi32_ps(ni);
    __m512 r = _mm512_fmadd_ps(n, _mm512_set1_ps(-0.693359375f), x);
    r = _mm512_fmadd_ps(n, _mm512_set1_ps(2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    const __m512i e = _mm512_slli_epi32(_mm512_add_epi32(ni, _mm512_set1_epi32(127)), 23);
    return _mm512_mask_blend_ps(overflow, _mm512_mul_ps(p, _mm512_castsi512_ps(e)), _mm512_set1_ps(__builtin_inff()));
}

#endif
