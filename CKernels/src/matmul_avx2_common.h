// Private inline helpers of the AVX2 matmul kernels (see matmul_avx2.c for the value classes
// and why each i16 partial sum cannot saturate).
#ifndef CK_MATMUL_AVX2_COMMON_H
#define CK_MATMUL_AVX2_COMMON_H

#include <immintrin.h>
#include <string.h>
#include "ck_matmul.h"
#include "scale_storage.h"

#define T256 __attribute__((target("avx2,fma,f16c")))
#define INLINE static inline __attribute__((always_inline))
/// Constant-trip loops over tile rows, halves and quads: unrolled so accumulators stay in registers.
#define UNROLL _Pragma("clang loop unroll(full)")

/// 4 activation bytes broadcast to all 8 dwords (one load-port broadcast).
T256 INLINE __m256i ck_bcast4(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

/// 8 scales from a repacked scale plane: fp16 (exact widening) or fp32.
T256 INLINE __m256 ck_load_scales8(const void *base, int64_t i, const int HS) {
    return HS ? _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)((const ck_half *)base + i)))
              : _mm256_loadu_ps((const float *)base + i);
}

/// 2^(e - off) for the 8 ue8m0 codes in e's dwords (0..255), as ck_e8m0_bits (NaN for the code 255).
T256 INLINE __m256 ck_e8m0_dwords8(__m256i e, int off) {
    const __m256i normal = _mm256_slli_epi32(_mm256_sub_epi32(e, _mm256_set1_epi32(off - 127)), 23);
    const __m256i tiny = _mm256_sllv_epi32(_mm256_set1_epi32(1 << (149 - off)), e);
    __m256i bits = _mm256_blendv_epi8(normal, tiny, _mm256_cmpgt_epi32(_mm256_set1_epi32(off - 126), e));
    bits = _mm256_blendv_epi8(bits, _mm256_set1_epi32(0x7FC00000), _mm256_cmpeq_epi32(e, _mm256_set1_epi32(255)));
    return _mm256_castsi256_ps(bits);
}

/// 2^(e - off) for 8 ue8m0 codes e8[0..7].
T256 INLINE __m256 ck_e8m0_scales8(const uint8_t *e8, int off) {
    return ck_e8m0_dwords8(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)e8)), off);
}

/// The 8 fp32 row scales of rows 8h..8h+7 of group g, 32-block b (nb blocks per row): which = 0
/// dw (the first half-block's for Q6_K), 1 Q6_K's second half-block dw, 2 mw (has_min formats).
/// K records: the products d * sc and -(dmin * m), exact in fp32 as in ck_decode_block32.
T256 INLINE __m256 ck_scales8(const void *dw, const void *mw, int64_t nb, int64_t g, int64_t b, int h, int which,
                              const int NSC, const int SC) {
    if (SC == CK_SC_K) {
        const uint8_t *rec = ck_kscale_record(dw, nb, g, b, NSC);
        const __m256 d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(rec + 32 * (which == 2) + 16 * h)));
        const __m128i codes = _mm_loadl_epi64((const __m128i *)(rec + ck_kscale_codes((int)(b % 8), which, NSC) + 8 * h));
        const __m256 v = _mm256_mul_ps(d, _mm256_cvtepi32_ps(NSC == 2 ? _mm256_cvtepi8_epi32(codes) : _mm256_cvtepu8_epi32(codes)));
        return which == 2 ? _mm256_xor_ps(v, _mm256_set1_ps(-0.0f)) : v;
    }
    if (SC == CK_SC_E8 || SC == CK_SC_E8I)
        return ck_e8m0_scales8((const uint8_t *)dw + (g * nb + b) * CK_R + 8 * h, ck_e8m0_plane_offset(SC));
    if (which == 2) return ck_load_scales8(mw, (g * nb + b) * CK_R + 8 * h, SC == CK_SC_F16);
    return ck_load_scales8(dw, ((g * nb + b) * NSC + which) * CK_R + 8 * h, SC == CK_SC_F16);
}

/// Bit `bit` of every byte of a bit-sliced plane (Q5_0's compact layout) moved to bit 4 (value
/// 0 or 16). 16-bit shifts are fine: for shifts of at most 4 the bit that lands on bit 4 comes
/// from the same byte.
T256 INLINE __m256i ck_fifth_bits(__m256i x, const int bit) {
    const __m256i b4 = _mm256_set1_epi8(16);
    if (bit < 4) return _mm256_and_si256(_mm256_slli_epi16(x, 4 - bit), b4);
    if (bit > 4) return _mm256_and_si256(_mm256_srli_epi16(x, bit - 4), b4);
    return _mm256_and_si256(x, b4);
}

/// Q3_K's values (u <= 7) of quad j from its compact layout (ck_weights): the 2-bit fields at
/// bits 4(j%2) + 2*hi of the 2-bit plane word v2 (quads j/2), the third bit j + 4*hi of the bit
/// plane x moved to bit 2; hi = 0: elements 4j.., 1: elements 16 + 4j... 16-bit shifts are fine:
/// every bit that lands in a kept position comes from the same byte.
T256 INLINE __m256i ck_q3_values(__m256i v2, __m256i x, const int j, const int hi) {
    const int s = 4 * (j % 2) + 2 * hi, bit = j + 4 * hi;
    const __m256i two = _mm256_and_si256(s ? _mm256_srli_epi16(v2, s) : v2, _mm256_set1_epi8(3));
    const __m256i top = bit < 2 ? _mm256_slli_epi16(x, 2 - bit) : bit > 2 ? _mm256_srli_epi16(x, bit - 2) : x;
    return _mm256_or_si256(two, _mm256_and_si256(top, _mm256_set1_epi8(4)));
}

#endif
