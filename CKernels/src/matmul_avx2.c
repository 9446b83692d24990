// AVX2 (+FMA) twins of ck_matmul_ref and ck_quantize_act_ref (same signatures, bit-identical).
//
// Same 16-row interleaved layout as the AVX-512 kernel, read as two 8-row halves: bytes
// 64j..64j+31 of a block are rows 0..7 x quad j, 64j+32.. rows 8..15. AVX2 has no u8 x s8 -> i32
// dot, so each quad is `vpmaddubsw` (u8 x s8 -> pairs summed into saturating i16) followed, after
// summing as many i16 partials as provably cannot saturate, by one `vpmaddwd` with ones:
//   4-bit values (<= 15):  |pair| <= 2*15*127 = 3810   -> all 8 quads summed in i16
//   Q5_0 / MXFP4 (<= 31):  7874                         -> 4 quads
//   Q6_K (<= 63):          16002                        -> 2 quads
//   Q8_0 / MXINT8 (<= 255) would saturate: split u = 16*hi + lo into two 4-bit dots (as above)
//   and combine them in i32 (cheaper than the sign trick: no per-row vpsignb).
// So the integer dot is exact and the fp32 epilogue is the reference's, lane by lane.
// Tiles: 4 activation rows x 8 weight rows; one activation row (decode) goes to matvec_avx2.c.
#pragma STDC FP_CONTRACT OFF

#include <immintrin.h>
#include <math.h>
#include <string.h>
#include "ck_matmul.h"

#define T256 __attribute__((target("avx2,fma,f16c")))
#define INLINE static inline __attribute__((always_inline))
/// Constant-trip loops over tile rows, halves and quads: unrolled so accumulators stay in registers.
#define UNROLL _Pragma("clang loop unroll(full)")

T256 INLINE __m256i bcast4(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

T256 INLINE int hsum_epi32(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return _mm_cvtsi128_si32(s);
}

T256 INLINE float hmax_ps(__m256 v) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_shuffle_ps(s, s, 0x55));
    return _mm_cvtss_f32(s);
}

T256 void ck_quantize_act_avx2(const ck_act *a, int64_t m0, int64_t m1) {
    const int64_t nb = a->k / 32;
    const __m256 signmask = _mm256_set1_ps(-0.0f);
    const __m256i lim = _mm256_set1_epi32(127), nlim = _mm256_set1_epi32(-127);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (int64_t m = m0; m < m1; m++) {
        for (int64_t b = 0; b < nb; b++) {
            const float *x = a->x + m * a->k + b * 32;
            int8_t *q = a->q + m * a->k + b * 32;
            __m256 v[4];
            __m256 ax = _mm256_setzero_ps();
            for (int i = 0; i < 4; i++) {
                v[i] = _mm256_loadu_ps(x + 8 * i);
                ax = _mm256_max_ps(ax, _mm256_andnot_ps(signmask, v[i]));
            }
            const float amax = hmax_ps(ax);
            const float d = amax / 127.0f;
            const float id = d != 0.0f ? 1.0f / d : 0.0f;
            const __m256 vid = _mm256_set1_ps(id);
            __m256i qi[4];
            for (int i = 0; i < 4; i++) {
                // cvtps rounds with MXCSR (nearest even), as nearbyintf does in the reference.
                qi[i] = _mm256_cvtps_epi32(_mm256_mul_ps(v[i], vid));
                qi[i] = _mm256_max_epi32(_mm256_min_epi32(qi[i], lim), nlim);
            }
            // packs interleave 128-bit lanes; the dword permute restores element order.
            const __m256i p = _mm256_packs_epi16(_mm256_packs_epi32(qi[0], qi[1]), _mm256_packs_epi32(qi[2], qi[3]));
            _mm256_storeu_si256((__m256i *)q, _mm256_permutevar8x32_epi32(p, order));
            const int s0 = hsum_epi32(_mm256_add_epi32(qi[0], qi[1])), s1 = hsum_epi32(_mm256_add_epi32(qi[2], qi[3]));
            float *meta = a->meta + (m * nb + b) * 4;
            meta[0] = d;
            meta[1] = d * (float)(s0 + s1);
            meta[2] = d * (float)s0;
            meta[3] = d * (float)s1;
            a->sums[m * nb + b] = s0 + s1;
        }
    }
}

/// 8 scales from a repacked scale plane: fp16 (exact widening) or fp32.
T256 INLINE __m256 load_scales8(const void *base, int64_t i, const int HS) {
    return HS ? _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)((const ck_half *)base + i)))
              : _mm256_loadu_ps((const float *)base + i);
}

/// Value classes (see the header comment).
enum { K_U4 = 0, K_U5 = 1, K_Q6 = 2, K_S8 = 3 };

/// MT activation rows (from m0) x HT halves of 8 weight rows (from half h0), the whole K.
/// Per block and half the quads are the outer loop so each weight load (and nibble unpack) is
/// shared by the MT activation rows; i16 partials are flushed to i32 before they can saturate.
/// nvalid: valid rows in the last half (rows past n are padding and are not stored).
T256 INLINE void tile(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t m0,
                      int64_t h0, int nvalid, float negoff, const int KIND, const int NSC, const int HASMIN,
                      const int HS, const int MT, const int HT) {
    const int64_t k = d->k, nb = k / 32, qb = (KIND == K_U4) ? 256 : 512;
    // Locals, so stores through y cannot force reloads of the descriptor fields.
    const uint8_t *const qs = w->qs;
    const void *const dws = w->dw, *const mws = w->mw;
    const float *const metas = a->meta;
    const int8_t *const aqs = a->q;
    const __m256 vneg = _mm256_set1_ps(negoff);
    const __m256i ones = _mm256_set1_epi16(1), low4 = _mm256_set1_epi8(0x0F);
    __m256 acc[HT][MT];
    UNROLL for (int h = 0; h < HT; h++)
        UNROLL for (int r = 0; r < MT; r++) acc[h][r] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; b++) {
        UNROLL for (int h = 0; h < HT; h++) {
            const int64_t g = (h0 + h) / 2, side = (h0 + h) % 2;
            const uint8_t *bq = qs + (g * nb + b) * qb, *hq = bq + 32 * side;
            const int8_t *aq[MT];
            UNROLL for (int r = 0; r < MT; r++) aq[r] = aqs + (m0 + r) * k + b * 32;
            __m256i dot0[MT], dot1[MT];
            if (KIND == K_U4) {
                // u <= 15: |pair| <= 3810, all 8 quads fit one i16 partial.
                __m256i p[MT];
                UNROLL for (int r = 0; r < MT; r++) p[r] = _mm256_setzero_si256();
                UNROLL for (int j = 0; j < 4; j++) {
                    const __m256i v = _mm256_loadu_si256((const __m256i *)(hq + 64 * j));
                    const __m256i lo = _mm256_and_si256(v, low4), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low4);
                    UNROLL for (int r = 0; r < MT; r++) {
                        p[r] = _mm256_add_epi16(p[r], _mm256_maddubs_epi16(lo, bcast4(aq[r] + 4 * j)));
                        p[r] = _mm256_add_epi16(p[r], _mm256_maddubs_epi16(hi, bcast4(aq[r] + 16 + 4 * j)));
                    }
                }
                UNROLL for (int r = 0; r < MT; r++) dot0[r] = _mm256_madd_epi16(p[r], ones);
            } else if (KIND == K_S8) {
                // u = 16*hi + lo with nibbles <= 15: two 4-bit dots, each fits one i16 partial.
                __m256i plo[MT], phi[MT];
                UNROLL for (int r = 0; r < MT; r++) plo[r] = phi[r] = _mm256_setzero_si256();
                UNROLL for (int j = 0; j < 8; j++) {
                    const __m256i v = _mm256_loadu_si256((const __m256i *)(hq + 64 * j));
                    const __m256i lo = _mm256_and_si256(v, low4), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low4);
                    UNROLL for (int r = 0; r < MT; r++) {
                        const __m256i av = bcast4(aq[r] + 4 * j);
                        plo[r] = _mm256_add_epi16(plo[r], _mm256_maddubs_epi16(lo, av));
                        phi[r] = _mm256_add_epi16(phi[r], _mm256_maddubs_epi16(hi, av));
                    }
                }
                UNROLL for (int r = 0; r < MT; r++)
                    dot0[r] = _mm256_add_epi32(_mm256_slli_epi32(_mm256_madd_epi16(phi[r], ones), 4), _mm256_madd_epi16(plo[r], ones));
            } else {
                // K_U5 (u <= 31): flush every 4 quads; K_Q6 (u <= 63): every 2, halves kept apart.
                const int flush = KIND == K_U5 ? 4 : 2;
                __m256i p[MT];
                UNROLL for (int r = 0; r < MT; r++) { p[r] = dot0[r] = dot1[r] = _mm256_setzero_si256(); }
                UNROLL for (int j = 0; j < 8; j++) {
                    const __m256i v = _mm256_loadu_si256((const __m256i *)(hq + 64 * j));
                    UNROLL for (int r = 0; r < MT; r++) p[r] = _mm256_add_epi16(p[r], _mm256_maddubs_epi16(v, bcast4(aq[r] + 4 * j)));
                    if (j % flush == flush - 1) {
                        UNROLL for (int r = 0; r < MT; r++) {
                            const __m256i s = _mm256_madd_epi16(p[r], ones);
                            if (KIND == K_Q6 && j >= 4) dot1[r] = _mm256_add_epi32(dot1[r], s);
                            else dot0[r] = _mm256_add_epi32(dot0[r], s);
                            p[r] = _mm256_setzero_si256();
                        }
                    }
                }
            }
            const int64_t di = (g * nb + b) * NSC * CK_R + 8 * side;
            const __m256 d0 = load_scales8(dws, di, HS);
            if (NSC == 1) {
                const __m256 mw = HASMIN ? load_scales8(mws, (g * nb + b) * CK_R + 8 * side, HS) : _mm256_mul_ps(d0, vneg);
                UNROLL for (int r = 0; r < MT; r++) {
                    const float *meta = metas + ((m0 + r) * nb + b) * 4;
                    acc[h][r] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(dot0[r]), d0), _mm256_set1_ps(meta[0]), acc[h][r]);
                    acc[h][r] = _mm256_fmadd_ps(mw, _mm256_set1_ps(meta[1]), acc[h][r]);
                }
            } else {
                const __m256 d1 = load_scales8(dws, di + CK_R, HS);
                const __m256 mw0 = _mm256_mul_ps(d0, vneg), mw1 = _mm256_mul_ps(d1, vneg);
                UNROLL for (int r = 0; r < MT; r++) {
                    const float *meta = metas + ((m0 + r) * nb + b) * 4;
                    const __m256 da = _mm256_set1_ps(meta[0]);
                    acc[h][r] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(dot0[r]), d0), da, acc[h][r]);
                    acc[h][r] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(dot1[r]), d1), da, acc[h][r]);
                    acc[h][r] = _mm256_fmadd_ps(mw0, _mm256_set1_ps(meta[2]), acc[h][r]);
                    acc[h][r] = _mm256_fmadd_ps(mw1, _mm256_set1_ps(meta[3]), acc[h][r]);
                }
            }
        }
    }
    UNROLL for (int h = 0; h < HT; h++) {
        const int valid = h == HT - 1 ? nvalid : 8;
        UNROLL for (int r = 0; r < MT; r++) {
            float *out = y + (m0 + r) * d->n + (h0 + h) * 8;
            if (valid == 8) {
                __m256 v = acc[h][r];
                if (d->accumulate) v = _mm256_add_ps(_mm256_loadu_ps(out), v);
                _mm256_storeu_ps(out, v);
            } else {
                float tmp[8];
                _mm256_storeu_ps(tmp, acc[h][r]);
                for (int i = 0; i < valid; i++) out[i] = d->accumulate ? out[i] + tmp[i] : tmp[i];
            }
        }
    }
}

typedef void (*tile_fn)(const ck_matmul_desc *, const ck_weights *, const ck_act *, float *, int64_t, int64_t, int, float);

#define TILE(NAME, KIND, NSC, HASMIN, HS, MT, HT)                                                             \
    T256 static void NAME(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t m0, \
                          int64_t h0, int nvalid, float negoff) {                                             \
        tile(d, w, a, y, m0, h0, nvalid, negoff, KIND, NSC, HASMIN, HS, MT, HT);                              \
    }
#define TILES(P, KIND, NSC, HASMIN, HS)              \
    TILE(P##_4x1, KIND, NSC, HASMIN, HS, 4, 1)       \
    TILE(P##_2x1, KIND, NSC, HASMIN, HS, 2, 1)       \
    TILE(P##_1x1, KIND, NSC, HASMIN, HS, 1, 1)       \
    static const tile_fn P[3] = {P##_4x1, P##_2x1, P##_1x1};

TILES(t_q4_0, K_U4, 1, 0, 1)
TILES(t_q4_1, K_U4, 1, 1, 1)
TILES(t_q4_K, K_U4, 1, 1, 0)
TILES(t_q5_0, K_U5, 1, 0, 1)
TILES(t_mxfp4, K_U5, 1, 0, 0)
TILES(t_q6_K, K_Q6, 2, 0, 0)
TILES(t_q8_0, K_S8, 1, 0, 1)
TILES(t_mxint8, K_S8, 1, 0, 0)

/// Halves per L2 chunk in the prefill loop: about 192 KiB of repacked weights.
static int64_t chunk_halves(const ck_format_info *info, int64_t k) {
    const int64_t bytes = (k / 32) * ((info->packed4 ? 128 : 256) + (info->half_scales ? 16 : 32) * (info->nsc + info->has_min));
    const int64_t c = (96 * 1024) / (bytes > 0 ? bytes : 1);
    return c < 1 ? 1 : c;
}

/// MXFP8 with fp32 activations, one activation row at a time, HT halves of 8 rows in flight (the
/// per-block partial sum is a 32-long FMA chain, so independent halves hide its latency).
/// Same operations as the reference: p = fma(P_i, x_i, p) from 0 over the block, then
/// acc = fma(X, p, acc); P_i = fp16 -> fp32 (exact) times 2^8 for E4M3 (exact).
T256 INLINE void fp8_tile(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *out, int64_t h0,
                          int nvalid, const int E4M3, const int HT) {
    const int64_t nb = d->k / 32;
    const ck_half *const hs = (const ck_half *)w->qs;
    const float *const xs = (const float *)w->dw;
    const __m256 s8 = _mm256_set1_ps(E4M3 ? 256.0f : 1.0f);
    __m256 acc[HT];
    UNROLL for (int h = 0; h < HT; h++) acc[h] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; b++) {
        __m256 p[HT];
        UNROLL for (int h = 0; h < HT; h++) p[h] = _mm256_setzero_ps();
        for (int i = 0; i < 32; i++) {
            const __m256 xv = _mm256_set1_ps(x[b * 32 + i]);
            UNROLL for (int h = 0; h < HT; h++) {
                const int64_t g = (h0 + h) / 2, side = (h0 + h) % 2;
                __m256 wv = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(hs + ((g * nb + b) * 32 + i) * CK_R + 8 * side)));
                if (E4M3) wv = _mm256_mul_ps(wv, s8);
                p[h] = _mm256_fmadd_ps(wv, xv, p[h]);
            }
        }
        UNROLL for (int h = 0; h < HT; h++) {
            const int64_t g = (h0 + h) / 2, side = (h0 + h) % 2;
            acc[h] = _mm256_fmadd_ps(_mm256_loadu_ps(xs + (g * nb + b) * CK_R + 8 * side), p[h], acc[h]);
        }
    }
    UNROLL for (int h = 0; h < HT; h++) {
        const int valid = h == HT - 1 ? nvalid : 8;
        float tmp[8];
        _mm256_storeu_ps(tmp, acc[h]);
        for (int i = 0; i < valid; i++) out[(h0 + h) * 8 + i] = d->accumulate ? out[(h0 + h) * 8 + i] + tmp[i] : tmp[i];
    }
}

T256 static void fp8_e4m3_x4(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *o, int64_t h0, int nv) { fp8_tile(d, w, x, o, h0, nv, 1, 4); }
T256 static void fp8_e4m3_x1(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *o, int64_t h0, int nv) { fp8_tile(d, w, x, o, h0, nv, 1, 1); }
T256 static void fp8_e5m2_x4(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *o, int64_t h0, int nv) { fp8_tile(d, w, x, o, h0, nv, 0, 4); }
T256 static void fp8_e5m2_x1(const ck_matmul_desc *d, const ck_weights *w, const float *x, float *o, int64_t h0, int nv) { fp8_tile(d, w, x, o, h0, nv, 0, 1); }

/// MXFP8 rows [n0, n1) for every activation row (used for decode; prefill goes to sgemm).
T256 static void fp8_matmul(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1) {
    const int e4m3 = w->format == CK_WF_MXFP8_E4M3;
    const int64_t h0 = n0 / 8, h1 = (n1 + 7) / 8;
    const int lastvalid = (int)(n1 - (h1 - 1) * 8);
    for (int64_t m = 0; m < d->m; m++) {
        const float *x = a->x + m * d->k;
        float *out = y + m * d->n;
        int64_t h = h0;
        for (; h + 4 <= h1; h += 4) (e4m3 ? fp8_e4m3_x4 : fp8_e5m2_x4)(d, w, x, out, h, h + 4 == h1 ? lastvalid : 8);
        for (; h < h1; h++) (e4m3 ? fp8_e4m3_x1 : fp8_e5m2_x1)(d, w, x, out, h, h + 1 == h1 ? lastvalid : 8);
    }
}

T256 void ck_matmul_avx2(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1) {
    const ck_format_info info = ck_weight_format_info(w->format);
    if ((w->format == CK_WF_MXFP8_E4M3 || w->format == CK_WF_MXFP8_E5M2) && w->qs) {
        fp8_matmul(d, w, a, y, n0, n1 < d->n ? n1 : d->n);
        return;
    }
    if (!info.int8_path) { ck_matmul_ref(d, w, a, y, n0, n1); return; }
    if (d->m == 1) { ck_matvec_avx2(d, w, a, y, n0, n1); return; }
    const tile_fn *t;
    switch (w->format) {
    case CK_WF_Q4_0: t = t_q4_0; break;
    case CK_WF_Q4_1: t = t_q4_1; break;
    case CK_WF_Q4_K: t = t_q4_K; break;
    case CK_WF_Q5_0: t = t_q5_0; break;
    case CK_WF_MXFP4: t = t_mxfp4; break;
    case CK_WF_Q6_K: t = t_q6_K; break;
    case CK_WF_Q8_0: t = t_q8_0; break;
    default: t = t_mxint8; break;
    }
    const float negoff = (float)(-info.off);
    if (n1 > d->n) n1 = d->n;
    const int64_t h0 = n0 / 8, h1 = (n1 + 7) / 8;
    const int lastvalid = (int)(n1 - (h1 - 1) * 8);
    const int64_t ch = chunk_halves(&info, d->k);
    for (int64_t c0 = h0; c0 < h1; c0 += ch) {
        const int64_t c1 = c0 + ch < h1 ? c0 + ch : h1;
        int64_t m = 0;
        while (m < d->m) {
            const int64_t left = d->m - m;
            const int sel = left >= 4 ? 0 : left >= 2 ? 1 : 2;
            for (int64_t h = c0; h < c1; h++) t[sel](d, w, a, y, m, h, h + 1 == h1 ? lastvalid : 8, negoff);
            m += sel == 0 ? 4 : sel == 1 ? 2 : 1;
        }
    }
}
