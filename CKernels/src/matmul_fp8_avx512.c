// MXFP8 (E4M3 / E5M2 codes, one ue8m0 scale per 32) on AVX-512 with fp32 activations: the
// reference's operations in its order, one 16-row group per register. Weights stay 8-bit in
// memory (ck_matmul.h: qs = [group][block][32][16] codes, dw = [group][block][16] fp32 scales).
//
// A code becomes its value in registers, exactly: sign-extended to 16 bits and shifted left 7,
// with bit 14 cleared, an E4M3 code is the binary16 of its value times 2^-8 (subnormals
// included); an E5M2 code shifted left 8 is its binary16. vcvtph2ps is exact, and so is the
// multiplication by 2^8. Per output and block: p = fma(value_i, x_i, p) from 0 over i = 0..31,
// then acc = fma(scale, p, acc) — the reference's sequence, so every output is bit-identical.
// (A block holding an E4M3 NaN code has a NaN scale from the repack, so its outputs are NaN as
// in the reference; the shift alone would read the code as 480.)
//
// Tiles: decode (M = 1) runs 4 groups (64 rows) in flight, four independent chains per
// activation; prefill runs 16 activation rows per group, so each decoded weight register feeds
// 16 FMAs and the decode cost is spread over them. ck_prefill_fp8_avx512 (prefill_units.c)
// hands out row and column ranges.
//
// matmul_fp8_avx512_emu.c compiles this file again against SIMDe (CK_AVX512_EMULATED), so the
// tests check it bit for bit on CPUs without AVX-512.
#pragma STDC FP_CONTRACT OFF

#include <string.h>
#include "ck_matmul.h"
#include "matmul_fp8_common.h"

#ifdef CK_AVX512_EMULATED
#include "avx512_simde.h"
#define T512
#else
#include <immintrin.h>
#define T512 __attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma,f16c")))
#endif
#define INLINE static inline __attribute__((always_inline))
#define UNROLL _Pragma("clang loop unroll(full)")

/// The 16 codes of one k in a 16-row group -> their fp32 values, E4M3 ones times 2^-8 (exact).
T512 INLINE __m512 decode16_scaled(const uint8_t *codes, const int E4M3) {
    const __m128i c = _mm_loadu_si128((const __m128i *)codes);
    const __m256i h = E4M3 ? _mm256_and_si256(_mm256_slli_epi16(_mm256_cvtepi8_epi16(c), 7), _mm256_set1_epi16((short)0xBFFF))
                           : _mm256_slli_epi16(_mm256_cvtepu8_epi16(c), 8);
    return _mm512_cvtph_ps(h);
}

/// The 16 codes of one k in a 16-row group -> their fp32 values (exact).
T512 INLINE __m512 decode16(const uint8_t *codes, const int E4M3) {
    const __m512 v = decode16_scaled(codes, E4M3);
    return E4M3 ? _mm512_mul_ps(v, _mm512_set1_ps(256.0f)) : v;
}

/// Writes lanes [0, valid) of `v` to out[0..valid), added to what is there when accumulating.
T512 INLINE void store_rows(const ck_matmul_desc *d, float *out, __m512 v, int valid) {
    float tmp[16];
    _mm512_storeu_ps(tmp, v);
    for (int r = 0; r < valid; r++) out[r] = d->accumulate ? out[r] + tmp[r] : tmp[r];
}

/// One activation row x G groups from g0 (decode); the last group has `last_valid` real rows.
/// SX: x scales exactly by 2^8 (ck_fp8_activation_scales_exactly), so E4M3 weights skip their
/// 2^8 and the broadcast activation takes it, once for all G groups.
T512 INLINE void decode_tile(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *out, int64_t g0,
                             int last_valid, const int E4M3, const int G, const int SX) {
    const int64_t nb = d->k / 32;
    const float *scales = (const float *)w->dw;
    __m512 acc[G];
    UNROLL for (int h = 0; h < G; h++) acc[h] = _mm512_setzero_ps();
    for (int64_t b = 0; b < nb; b++) {
        __m512 p[G];
        UNROLL for (int h = 0; h < G; h++) p[h] = _mm512_setzero_ps();
        for (int i = 0; i < 32; i++) {
            const __m512 xv = E4M3 && SX ? _mm512_mul_ps(_mm512_set1_ps(x[b * 32 + i]), _mm512_set1_ps(256.0f))
                                         : _mm512_set1_ps(x[b * 32 + i]);
            UNROLL for (int h = 0; h < G; h++) {
                const uint8_t *codes = w->qs + (((g0 + h) * nb + b) * 32 + i) * CK_R;
                p[h] = _mm512_fmadd_ps(SX ? decode16_scaled(codes, E4M3) : decode16(codes, E4M3), xv, p[h]);
            }
        }
        UNROLL for (int h = 0; h < G; h++)
            acc[h] = _mm512_fmadd_ps(_mm512_loadu_ps(scales + ((g0 + h) * nb + b) * CK_R), p[h], acc[h]);
    }
    UNROLL for (int h = 0; h < G; h++) store_rows(d, out + (g0 + h) * CK_R, acc[h], h == G - 1 ? last_valid : CK_R);
}

/// MT activation rows from m0 x one group g (prefill); `valid` real rows in the group.
T512 INLINE void prefill_tile(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t m0,
                              int64_t g, int valid, const int E4M3, const int MT) {
    const int64_t nb = d->k / 32, k = d->k;
    const float *scales = (const float *)w->dw;
    const float *x = a->x + m0 * k;
    __m512 acc[MT];
    UNROLL for (int m = 0; m < MT; m++) acc[m] = _mm512_setzero_ps();
    for (int64_t b = 0; b < nb; b++) {
        __m512 p[MT];
        UNROLL for (int m = 0; m < MT; m++) p[m] = _mm512_setzero_ps();
        const uint8_t *codes = w->qs + (g * nb + b) * 32 * CK_R;
        for (int i = 0; i < 32; i++) {
            const __m512 v = decode16(codes + i * CK_R, E4M3);
            UNROLL for (int m = 0; m < MT; m++) p[m] = _mm512_fmadd_ps(v, _mm512_set1_ps(x[m * k + b * 32 + i]), p[m]);
        }
        const __m512 s = _mm512_loadu_ps(scales + (g * nb + b) * CK_R);
        UNROLL for (int m = 0; m < MT; m++) acc[m] = _mm512_fmadd_ps(s, p[m], acc[m]);
    }
    UNROLL for (int m = 0; m < MT; m++) store_rows(d, y + (m0 + m) * d->n + g * CK_R, acc[m], valid);
}

#define DECODE(NAME, E, G, SX) \
    T512 static void NAME(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *o, int64_t g0, int lv) { decode_tile(d, w, x, o, g0, lv, E, G, SX); }
DECODE(dec_e4m3_x4, 1, 4, 0) DECODE(dec_e4m3_x1, 1, 1, 0) DECODE(dec_e4m3_sx_x4, 1, 4, 1) DECODE(dec_e4m3_sx_x1, 1, 1, 1)
DECODE(dec_e5m2_x4, 0, 4, 0) DECODE(dec_e5m2_x1, 0, 1, 0)

typedef void (*decode_fn)(const ck_matmul_desc *, const ck_weights *, const float *, float *, int64_t, int);

#define PREFILL_TILE(NAME, E, MT) \
    T512 static void NAME(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t m0, int64_t g, int v) { prefill_tile(d, w, a, y, m0, g, v, E, MT); }
PREFILL_TILE(pre_e4m3_16, 1, 16) PREFILL_TILE(pre_e4m3_8, 1, 8) PREFILL_TILE(pre_e4m3_4, 1, 4) PREFILL_TILE(pre_e4m3_1, 1, 1)
PREFILL_TILE(pre_e5m2_16, 0, 16) PREFILL_TILE(pre_e5m2_8, 0, 8) PREFILL_TILE(pre_e5m2_4, 0, 4) PREFILL_TILE(pre_e5m2_1, 0, 1)

typedef void (*prefill_fn)(const ck_matmul_desc *, const ck_weights *, const ck_act *, float *, int64_t, int64_t, int);

/// Output rows [n0, n1) for every activation row (n0 a multiple of 16); MXFP8 weights only.
T512 void ck_matmul_fp8_avx512(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1) {
    const int e4m3 = w->format == CK_WF_MXFP8_E4M3;
    if (n1 > d->n) n1 = d->n;
    const int64_t g0 = n0 / CK_R, g1 = (n1 + CK_R - 1) / CK_R;
    const int last_valid = (int)(n1 - (g1 - 1) * CK_R);
    if (d->m == 1) {
        const int sx = e4m3 && ck_fp8_activation_scales_exactly(a->x, d->k);
        const decode_fn x4 = sx ? dec_e4m3_sx_x4 : e4m3 ? dec_e4m3_x4 : dec_e5m2_x4;
        const decode_fn x1 = sx ? dec_e4m3_sx_x1 : e4m3 ? dec_e4m3_x1 : dec_e5m2_x1;
        int64_t g = g0;
        for (; g + 4 <= g1; g += 4) x4(d, w, a->x, y, g, g + 4 == g1 ? last_valid : CK_R);
        for (; g < g1; g++) x1(d, w, a->x, y, g, g + 1 == g1 ? last_valid : CK_R);
        return;
    }
    static const prefill_fn tiles[2][4] = {{pre_e5m2_16, pre_e5m2_8, pre_e5m2_4, pre_e5m2_1},
                                           {pre_e4m3_16, pre_e4m3_8, pre_e4m3_4, pre_e4m3_1}};
    static const int rows[4] = {16, 8, 4, 1};
    // One group's codes (k bytes per row) stay in L1 while every row tile passes over them.
    for (int64_t g = g0; g < g1; g++) {
        const int valid = g + 1 == g1 ? last_valid : CK_R;
        for (int64_t m = 0; m < d->m;) {
            const int64_t left = d->m - m;
            const int t = left >= 16 ? 0 : left >= 8 ? 1 : left >= 4 ? 2 : 3;
            tiles[e4m3][t](d, w, a, y, m, g, valid);
            m += rows[t];
        }
    }
}
