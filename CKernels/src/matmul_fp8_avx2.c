// MXFP8 (E4M3 / E5M2 codes, one ue8m0 scale per 32) on AVX2 + F16C + FMA with fp32
// activations: the AVX-512 kernel's design (matmul_fp8_avx512.c, which explains the exact code
// -> value conversion and the operation order) on 8-row halves of each 16-row group. Weights stay
// 8-bit in memory: qs = [group][block][32][16] codes, half s at bytes 8s..8s+7 of each k.
//
// Tiles: decode (M = 1) runs 4 halves in flight; prefill runs 8 activation rows per half, so
// each decoded weight register feeds 8 FMAs. ck_prefill_fp8_avx2 (prefill_units.c) hands out
// row and column ranges.
#pragma STDC FP_CONTRACT OFF

#include "matmul_avx2_common.h"
#include "matmul_fp8_common.h"

/// The 8 codes of one k in an 8-row half -> their fp32 values, E4M3 ones times 2^-8 (exact).
T256 INLINE __m256 decode8_scaled(const uint8_t *codes, const int E4M3) {
    const __m128i c = _mm_loadl_epi64((const __m128i *)codes);
    const __m128i h = E4M3 ? _mm_and_si128(_mm_slli_epi16(_mm_cvtepi8_epi16(c), 7), _mm_set1_epi16((short)0xBFFF))
                           : _mm_slli_epi16(_mm_cvtepu8_epi16(c), 8);
    return _mm256_cvtph_ps(h);
}

/// The 8 codes of one k in an 8-row half -> their fp32 values (exact).
T256 INLINE __m256 decode8(const uint8_t *codes, const int E4M3) {
    const __m256 v = decode8_scaled(codes, E4M3);
    return E4M3 ? _mm256_mul_ps(v, _mm256_set1_ps(256.0f)) : v;
}

/// Byte offset of half `half` (group half / 2, side half % 2) at block b, k i.
static inline int64_t code_offset(int64_t half, int64_t nb, int64_t b, int i) {
    return (((half / 2) * nb + b) * 32 + i) * CK_R + 8 * (half % 2);
}

/// Scale offset (floats) of half `half` at block b.
static inline int64_t scale_offset(int64_t half, int64_t nb, int64_t b) {
    return ((half / 2) * nb + b) * CK_R + 8 * (half % 2);
}

/// Writes lanes [0, valid) of `v` to out[0..valid), added to what is there when accumulating.
T256 INLINE void store_rows(const ck_matmul_desc *d, float *out, __m256 v, int valid) {
    float tmp[8];
    _mm256_storeu_ps(tmp, v);
    for (int r = 0; r < valid; r++) out[r] = d->accumulate ? out[r] + tmp[r] : tmp[r];
}

/// One activation row x HT halves from h0 (decode); the last half has `last_valid` real rows.
/// SX: x scales exactly by 2^8 (ck_fp8_activation_scales_exactly), so E4M3 weights skip their
/// 2^8 and the broadcast activation takes it, once for all HT halves.
T256 INLINE void decode_tile(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *out, int64_t h0,
                             int last_valid, const int E4M3, const int HT, const int SX) {
    const int64_t nb = d->k / 32;
    const float *scales = (const float *)w->dw;
    __m256 acc[HT];
    UNROLL for (int h = 0; h < HT; h++) acc[h] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; b++) {
        __m256 p[HT];
        UNROLL for (int h = 0; h < HT; h++) p[h] = _mm256_setzero_ps();
        for (int i = 0; i < 32; i++) {
            const __m256 xv = E4M3 && SX ? _mm256_mul_ps(_mm256_set1_ps(x[b * 32 + i]), _mm256_set1_ps(256.0f))
                                         : _mm256_set1_ps(x[b * 32 + i]);
            UNROLL for (int h = 0; h < HT; h++) {
                const uint8_t *codes = w->qs + code_offset(h0 + h, nb, b, i);
                p[h] = _mm256_fmadd_ps(SX ? decode8_scaled(codes, E4M3) : decode8(codes, E4M3), xv, p[h]);
            }
        }
        UNROLL for (int h = 0; h < HT; h++)
            acc[h] = _mm256_fmadd_ps(_mm256_loadu_ps(scales + scale_offset(h0 + h, nb, b)), p[h], acc[h]);
    }
    UNROLL for (int h = 0; h < HT; h++) store_rows(d, out + (h0 + h) * 8, acc[h], h == HT - 1 ? last_valid : 8);
}

/// MT activation rows from m0 x one half (prefill); `valid` real rows in the half.
T256 INLINE void prefill_tile(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t m0,
                              int64_t half, int valid, const int E4M3, const int MT) {
    const int64_t nb = d->k / 32, k = d->k;
    const float *scales = (const float *)w->dw;
    const float *x = a->x + m0 * k;
    __m256 acc[MT];
    UNROLL for (int m = 0; m < MT; m++) acc[m] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; b++) {
        __m256 p[MT];
        UNROLL for (int m = 0; m < MT; m++) p[m] = _mm256_setzero_ps();
        for (int i = 0; i < 32; i++) {
            const __m256 v = decode8(w->qs + code_offset(half, nb, b, i), E4M3);
            UNROLL for (int m = 0; m < MT; m++) p[m] = _mm256_fmadd_ps(v, _mm256_set1_ps(x[m * k + b * 32 + i]), p[m]);
        }
        const __m256 s = _mm256_loadu_ps(scales + scale_offset(half, nb, b));
        UNROLL for (int m = 0; m < MT; m++) acc[m] = _mm256_fmadd_ps(s, p[m], acc[m]);
    }
    UNROLL for (int m = 0; m < MT; m++) store_rows(d, y + (m0 + m) * d->n + half * 8, acc[m], valid);
}

#define DECODE(NAME, E, HT, SX) \
    T256 static void NAME(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *o, int64_t h0, int lv) { decode_tile(d, w, x, o, h0, lv, E, HT, SX); }
DECODE(dec_e4m3_x4, 1, 4, 0) DECODE(dec_e4m3_x1, 1, 1, 0) DECODE(dec_e4m3_sx_x4, 1, 4, 1) DECODE(dec_e4m3_sx_x1, 1, 1, 1)
DECODE(dec_e5m2_x4, 0, 4, 0) DECODE(dec_e5m2_x1, 0, 1, 0)

typedef void (*decode_fn)(const ck_matmul_desc *, const ck_weights *, const float *, float *, int64_t, int);

#define PREFILL_TILE(NAME, E, MT) \
    T256 static void NAME(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t m0, int64_t h, int v) { prefill_tile(d, w, a, y, m0, h, v, E, MT); }
PREFILL_TILE(pre_e4m3_8, 1, 8) PREFILL_TILE(pre_e4m3_4, 1, 4) PREFILL_TILE(pre_e4m3_1, 1, 1)
PREFILL_TILE(pre_e5m2_8, 0, 8) PREFILL_TILE(pre_e5m2_4, 0, 4) PREFILL_TILE(pre_e5m2_1, 0, 1)

typedef void (*prefill_fn)(const ck_matmul_desc *, const ck_weights *, const ck_act *, float *, int64_t, int64_t, int);

/// Output rows [n0, n1) for every activation row (n0 a multiple of 16); MXFP8 weights only.
T256 void ck_matmul_fp8_avx2(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1) {
    const int e4m3 = w->format == CK_WF_MXFP8_E4M3;
    if (n1 > d->n) n1 = d->n;
    const int64_t h0 = n0 / 8, h1 = (n1 + 7) / 8;
    const int last_valid = (int)(n1 - (h1 - 1) * 8);
    if (d->m == 1) {
        const int sx = e4m3 && ck_fp8_activation_scales_exactly(a->x, d->k);
        const decode_fn x4 = sx ? dec_e4m3_sx_x4 : e4m3 ? dec_e4m3_x4 : dec_e5m2_x4;
        const decode_fn x1 = sx ? dec_e4m3_sx_x1 : e4m3 ? dec_e4m3_x1 : dec_e5m2_x1;
        int64_t h = h0;
        for (; h + 4 <= h1; h += 4) x4(d, w, a->x, y, h, h + 4 == h1 ? last_valid : 8);
        for (; h < h1; h++) x1(d, w, a->x, y, h, h + 1 == h1 ? last_valid : 8);
        return;
    }
    static const prefill_fn tiles[2][3] = {{pre_e5m2_8, pre_e5m2_4, pre_e5m2_1}, {pre_e4m3_8, pre_e4m3_4, pre_e4m3_1}};
    static const int rows[3] = {8, 4, 1};
    // One half's codes stay in L1 while every row tile passes over them.
    for (int64_t h = h0; h < h1; h++) {
        const int valid = h + 1 == h1 ? last_valid : 8;
        for (int64_t m = 0; m < d->m;) {
            const int64_t left = d->m - m;
            const int t = left >= 8 ? 0 : left >= 4 ? 1 : 2;
            tiles[e4m3][t](d, w, a, y, m, h, valid);
            m += rows[t];
        }
    }
}
