// The 16 fp32 row scales of a repacked group's 32-block on 16 lanes, from any scale storage
// (scale_storage.h), and the K-quants' codes and super-block steps, for the AVX-512 VNNI and AMX
// kernels, native or over SIMDe (the *_emu.c twins define CK_AVX512_EMULATED or
// CK_AMX_EMULATED before including their kernel file).
#ifndef CK_SCALES_AVX512_H
#define CK_SCALES_AVX512_H

#include <string.h>
#include "scale_storage.h"

#if defined(CK_AVX512_EMULATED) || defined(CK_AMX_EMULATED)
#include "avx512_simde.h"
#define TSC16 static inline
#else
#include <immintrin.h>
#define TSC16 static inline __attribute__((always_inline, target("avx512f,avx512bw,avx512vl,avx2,fma,f16c")))
#endif

// MARK: - The K-quants' integer super-block form (ck_matmul.h)

/// 16 rows' codes p[0..15] (int8 when SIGNED: Q6_K, Q3_K) as int32, row r in lane r.
TSC16 __m512i ck_kcodes16(const uint8_t *p, const int SIGNED) {
#if defined(CK_AVX512_EMULATED) || defined(CK_AMX_EMULATED)
    int32_t v[16];   // this SIMDe release has no 512-bit byte widening
    for (int i = 0; i < 16; i++) v[i] = SIGNED ? (int8_t)p[i] : p[i];
    __m512i x;
    memcpy(&x, v, 64);
    return x;
#else
    const __m128i c = _mm_loadu_si128((const __m128i *)p);
    return SIGNED ? _mm512_cvtepi8_epi32(c) : _mm512_cvtepu8_epi32(c);
#endif
}

/// 16 rows' fp16 factor of a K record (which = 0: d, 2: dmin), as fp32.
TSC16 __m512 ck_kfactor16(const uint8_t *rec, int which) {
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(rec + 32 * (which == 2))));
}

/// The pairs of codes that multiply a super-block's activation sums, rows 0..15 of the record
/// (as the AVX2 kernels' ck_kterm_pairs8): NSC = 1 pair p the min codes of 32-blocks 2p and
/// 2p + 1 (p < 4), NSC = 2 pair j 32-block j's two half-block codes; lane r holds row r's pair
/// as two i16.
TSC16 void ck_kterm_pairs16(const uint8_t *rec, const int NSC, __m512i pairs[8]) {
    for (int p = 0; p < (NSC == 2 ? 8 : 4); p++) {
        const uint8_t *a = rec + (NSC == 2 ? ck_kscale_codes(p, 0, 2) : ck_kscale_codes(2 * p, 2, 1));
        const uint8_t *b = rec + (NSC == 2 ? ck_kscale_codes(p, 1, 2) : ck_kscale_codes(2 * p + 1, 2, 1));
#if defined(CK_AVX512_EMULATED) || defined(CK_AMX_EMULATED)
        int16_t v[32];
        for (int r = 0; r < 16; r++) {
            v[2 * r] = NSC == 2 ? (int8_t)a[r] : a[r];
            v[2 * r + 1] = NSC == 2 ? (int8_t)b[r] : b[r];
        }
        memcpy(&pairs[p], v, 64);
#else
        const __m128i x = _mm_loadu_si128((const __m128i *)a), y = _mm_loadu_si128((const __m128i *)b);
        const __m256i xy = _mm256_set_m128i(_mm_unpackhi_epi8(x, y), _mm_unpacklo_epi8(x, y));
        pairs[p] = NSC == 2 ? _mm512_cvtepi8_epi16(xy) : _mm512_cvtepu8_epi16(xy);
#endif
    }
}

/// The activation side of a super-block for one activation row (as ck_kterm8): the pairs times
/// the row's int16 sums (NSC = 1: its 8 block sums, NSC = 2: its 16 half-block sums), in int32.
TSC16 __m512i ck_kterm16(const __m512i pairs[8], const int16_t *sums, const int NSC) {
    __m512i t = _mm512_setzero_si512();
    for (int p = 0; p < (NSC == 2 ? 8 : 4); p++) {
        int32_t two;
        memcpy(&two, sums + 2 * p, 4);
        t = _mm512_add_epi32(t, _mm512_madd_epi16(pairs[p], _mm512_set1_epi32(two)));
    }
    return t;
}

/// acc after a super-block (ck_matmul.h; as ck_kfold8): s = sum of code * dot(u, q), t its
/// ck_kterm16, da the activations' scale.
TSC16 __m512 ck_kfold16(__m512 acc, __m512i s, __m512i t, const uint8_t *rec, __m512 da, int off, const int NSC) {
    if (NSC == 2) s = _mm512_sub_epi32(s, _mm512_mullo_epi32(t, _mm512_set1_epi32(off)));
    acc = _mm512_fmadd_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(s), ck_kfactor16(rec, 0)), da, acc);
    if (NSC == 2) return acc;
    const __m512 ndmin = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(ck_kfactor16(rec, 2)), _mm512_set1_epi32((int)0x80000000u)));
    return _mm512_fmadd_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(t), ndmin), da, acc);
}

/// 2^(e - off) for 16 ue8m0 codes e8[0..15], as ck_e8m0_bits (NaN for the code 255).
TSC16 __m512 ck_e8m0_scales16(const uint8_t *e8, int off) {
#if defined(CK_AVX512_EMULATED) || defined(CK_AMX_EMULATED)
    uint32_t v[16];   // this SIMDe release has no 512-bit byte widening
    for (int i = 0; i < 16; i++) v[i] = ck_e8m0_bits(e8[i], off);
    __m512i x;
    memcpy(&x, v, 64);
    return _mm512_castsi512_ps(x);
#else
    const __m512i e = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)e8));
    __m512i bits = _mm512_slli_epi32(_mm512_sub_epi32(e, _mm512_set1_epi32(off - 127)), 23);
    bits = _mm512_mask_sllv_epi32(bits, _mm512_cmplt_epu32_mask(e, _mm512_set1_epi32(off - 126)),
                                  _mm512_set1_epi32(1 << (149 - off)), e);
    bits = _mm512_mask_mov_epi32(bits, _mm512_cmpeq_epi32_mask(e, _mm512_set1_epi32(255)), _mm512_set1_epi32(0x7FC00000));
    return _mm512_castsi512_ps(bits);
#endif
}

/// Rows 0..15 of group g, 32-block b (nb blocks per row): which = 0 dw, 2 mw (has_min
/// formats). Every storage but the K records (their kernels take the codes).
TSC16 __m512 ck_scales16(const void *dw, const void *mw, int64_t nb, int64_t g, int64_t b, int which, const int SC) {
    if (SC == CK_SC_E8 || SC == CK_SC_E8I)
        return ck_e8m0_scales16((const uint8_t *)dw + (g * nb + b) * CK_R, ck_e8m0_plane_offset(SC));
    const void *plane = which == 2 ? mw : dw;
    const int64_t i = (g * nb + b) * CK_R;
    return SC == CK_SC_F16 ? _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)((const ck_half *)plane + i)))
                           : _mm512_loadu_ps((const float *)plane + i);
}

#endif
