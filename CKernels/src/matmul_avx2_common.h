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

/// 2^(e - off) for 8 ue8m0 codes e8[0..7]. The codes reach their dwords by an in-lane vpshufb
/// of a broadcast load: vpmovzxbd crosses the 128-bit lanes, three times a shuffle's time on
/// Zen 3's two shuffle pipes, which decode's nibble unpacks and lookups need (MXFP4 decode:
/// +10 % a core). A branch taking the exponent shift alone when no code is special was slower.
T256 INLINE __m256 ck_e8m0_scales8(const uint8_t *e8, int off) {
    int64_t v;
    memcpy(&v, e8, 8);
    const __m256i e = _mm256_shuffle_epi8(_mm256_set1_epi64x(v), _mm256_setr_epi8(0, -1, -1, -1, 1, -1, -1, -1, 2, -1, -1, -1, 3, -1, -1, -1,
                                                                                  4, -1, -1, -1, 5, -1, -1, -1, 6, -1, -1, -1, 7, -1, -1, -1));
    return ck_e8m0_dwords8(e, off);
}

/// The 8 fp32 row scales of rows 8h..8h+7 of group g, 32-block b (nb blocks per row): which = 0
/// dw, 2 mw (has_min formats). Every storage but the K records (their kernels take the codes).
T256 INLINE __m256 ck_scales8(const void *dw, const void *mw, int64_t nb, int64_t g, int64_t b, int h, int which,
                              const int SC) {
    if (SC == CK_SC_E8 || SC == CK_SC_E8I)
        return ck_e8m0_scales8((const uint8_t *)dw + (g * nb + b) * CK_R + 8 * h, ck_e8m0_plane_offset(SC));
    if (which == 2) return ck_load_scales8(mw, (g * nb + b) * CK_R + 8 * h, SC == CK_SC_F16);
    return ck_load_scales8(dw, (g * nb + b) * CK_R + 8 * h, SC == CK_SC_F16);
}

// MARK: - The K-quants' integer super-block form (ck_matmul.h)

/// Rows 8h..8h+7's fp16 factor of a K record (which = 0: d, 2: dmin), as fp32.
T256 INLINE __m256 ck_kfactor8(const uint8_t *rec, int h, int which) {
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(rec + 32 * (which == 2) + 16 * h)));
}

/// Eight rows' codes c[0..7] as the i16 pair (c[d], c[d]) in dword d: the vpmaddwd multiplier
/// that adds a dword's two i16 partial dots times its row's code. One broadcast and one
/// vpshufb (the code in the high byte, then an arithmetic shift, when SIGNED).
T256 INLINE __m256i ck_code_pairs8(const uint8_t *c, const int SIGNED) {
    int64_t v;
    memcpy(&v, c, 8);
    const __m256i x = _mm256_set1_epi64x(v);   // c[0..7] twice in each 128-bit lane
    if (SIGNED)
        return _mm256_srai_epi16(_mm256_shuffle_epi8(x, _mm256_setr_epi8(-1, 0, -1, 0, -1, 1, -1, 1, -1, 2, -1, 2, -1, 3, -1, 3,
                                                                         -1, 4, -1, 4, -1, 5, -1, 5, -1, 6, -1, 6, -1, 7, -1, 7)), 8);
    return _mm256_shuffle_epi8(x, _mm256_setr_epi8(0, -1, 0, -1, 1, -1, 1, -1, 2, -1, 2, -1, 3, -1, 3, -1,
                                                   4, -1, 4, -1, 5, -1, 5, -1, 6, -1, 6, -1, 7, -1, 7, -1));
}

/// The code pairs (ck_code_pairs8) of rows 8h..8h+7 of a K record for 32-block b: first[0] for its
/// elements 0..15, second[0] for 16..31 (the same block code when NSC = 1: Q4_K, Q5_K).
T256 INLINE void ck_block_code_pairs8(const uint8_t *rec, int64_t b, int h, const int NSC, __m256i *first, __m256i *second) {
    *first = ck_code_pairs8(rec + ck_kscale_codes((int)(b % 8), 0, NSC) + 8 * h, NSC == 2);
    *second = NSC == 2 ? ck_code_pairs8(rec + ck_kscale_codes((int)(b % 8), 1, 2) + 8 * h, 1) : *first;
}

/// The pairs of codes that multiply the activation sums of a super-block, rows 8h..8h+7 of the
/// record: NSC = 1 (Q4_K, Q5_K) pair p the min codes of 32-blocks 2p and 2p + 1 (p < 4);
/// NSC = 2 (Q6_K, Q3_K) pair j 32-block j's two half-block codes. Dword d holds row d's pair as
/// two i16, the order of the int16 sums they meet (ck_act: sums, half_sums).
T256 INLINE void ck_kterm_pairs8(const uint8_t *rec, int h, const int NSC, __m256i pairs[8]) {
    UNROLL for (int p = 0; p < (NSC == 2 ? 8 : 4); p++) {
        const uint8_t *a = rec + 8 * h + (NSC == 2 ? ck_kscale_codes(p, 0, 2) : ck_kscale_codes(2 * p, 2, 1));
        const uint8_t *b = rec + 8 * h + (NSC == 2 ? ck_kscale_codes(p, 1, 2) : ck_kscale_codes(2 * p + 1, 2, 1));
        const __m128i x = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)a), _mm_loadl_epi64((const __m128i *)b));
        pairs[p] = NSC == 2 ? _mm256_cvtepi8_epi16(x) : _mm256_cvtepu8_epi16(x);
    }
}

/// The activation side of a super-block for one activation row: per row, the codes of
/// ck_kterm_pairs8 times the row's int16 sums (NSC = 1: the 8 block sums, a->sums; NSC = 2: the
/// 16 half-block sums, a->half_sums), exact in int32.
T256 INLINE __m256i ck_kterm8(const __m256i pairs[8], const int16_t *sums, const int NSC) {
    __m256i t = _mm256_setzero_si256();
    UNROLL for (int p = 0; p < (NSC == 2 ? 8 : 4); p++) {
        int32_t two;
        memcpy(&two, sums + 2 * p, 4);
        t = _mm256_add_epi32(t, _mm256_madd_epi16(pairs[p], _mm256_set1_epi32(two)));
    }
    return t;
}

/// acc after a super-block (ck_matmul.h): s = sum of code * dot(u, q), t its ck_kterm8, da the
/// activations' scale. NSC = 1: acc + (float)s * d * da, then + (float)t * -dmin * da;
/// NSC = 2: acc + (float)(s - off * t) * d * da.
T256 INLINE __m256 ck_kfold8(__m256 acc, __m256i s, __m256i t, const uint8_t *rec, int h, __m256 da, int off, const int NSC) {
    if (NSC == 2) s = _mm256_sub_epi32(s, _mm256_mullo_epi32(t, _mm256_set1_epi32(off)));
    acc = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(s), ck_kfactor8(rec, h, 0)), da, acc);
    if (NSC == 2) return acc;
    const __m256 ndmin = _mm256_xor_ps(ck_kfactor8(rec, h, 2), _mm256_set1_ps(-0.0f));
    return _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(t), ndmin), da, acc);
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
