// The 16 fp32 row scales of a repacked group's 32-block on 16 lanes, from any scale storage
// (scale_storage.h), for the AVX-512 VNNI and AMX kernels, native or over SIMDe (the *_emu.c
// twins define CK_AVX512_EMULATED or CK_AMX_EMULATED before including their kernel file).
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

/// 16 scale codes widened to fp32 (exact): unsigned (Q4_K) or signed (Q6_K) bytes.
TSC16 __m512 ck_codes16(const uint8_t *p, const int SIGNED) {
#if defined(CK_AVX512_EMULATED) || defined(CK_AMX_EMULATED)
    int32_t v[16];   // this SIMDe release has no 512-bit byte widening
    for (int i = 0; i < 16; i++) v[i] = SIGNED ? (int8_t)p[i] : p[i];
    __m512i x;
    memcpy(&x, v, 64);
    return _mm512_cvtepi32_ps(x);
#else
    const __m128i c = _mm_loadu_si128((const __m128i *)p);
    return _mm512_cvtepi32_ps(SIGNED ? _mm512_cvtepi8_epi32(c) : _mm512_cvtepu8_epi32(c));
#endif
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

/// Rows 0..15 of group g, 32-block b (nb blocks per row): which = 0 dw (the first half-block's
/// for Q6_K), 1 Q6_K's second half-block dw, 2 mw (has_min formats). K records: the products
/// d * sc and -(dmin * m), exact in fp32 as in ck_decode_block32.
TSC16 __m512 ck_scales16(const void *dw, const void *mw, int64_t nb, int64_t g, int64_t b, int which, const int NSC,
                         const int SC) {
    if (SC == CK_SC_K) {
        const uint8_t *rec = ck_kscale_record(dw, nb, g, b, NSC);
        const __m512 d = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(rec + 32 * (which == 2))));
        const __m512 v = _mm512_mul_ps(d, ck_codes16(rec + ck_kscale_codes((int)(b % 8), which, NSC), NSC == 2));
        return which == 2 ? _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(v), _mm512_set1_epi32((int)0x80000000u))) : v;
    }
    if (SC == CK_SC_E8 || SC == CK_SC_E8I)
        return ck_e8m0_scales16((const uint8_t *)dw + (g * nb + b) * CK_R, ck_e8m0_plane_offset(SC));
    const void *plane = which == 2 ? mw : dw;
    const int64_t i = which == 2 ? (g * nb + b) * CK_R : ((g * nb + b) * NSC + which) * CK_R;
    return SC == CK_SC_F16 ? _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)((const ck_half *)plane + i)))
                           : _mm512_loadu_ps((const float *)plane + i);
}

#endif
