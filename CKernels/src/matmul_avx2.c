// AVX2 (+FMA) twins of ck_matmul_ref and ck_quantize_act_ref (same signatures, bit-identical).
//
// Same 16-row interleaved layout as the AVX-512 kernel, read as two 8-row halves: bytes
// 64j..64j+31 of a block are rows 0..7 x quad j, 64j+32.. rows 8..15. AVX2 has no u8 x s8 -> i32
// dot, so each quad is `vpmaddubsw` (u8 x s8 -> pairs summed into saturating i16) followed, after
// summing as many i16 partials as provably cannot saturate, by one `vpmaddwd` with ones:
//   4-bit values (<= 15):  |pair| <= 2*15*127 = 3810   -> all 8 quads summed in i16
//   Q5_0 / MXFP4 (<= 31):  7874                         -> 4 quads
//   Q6_K (<= 63):          16002                        -> 2 quads
//   Q8_0 / MXINT8 (<= 255) would saturate: use the signed weight s = u - 128 with the sign trick
//   (|s| <= 128, 2*128*127 = 32512), then add back 128 * sum(q) from the activation block sums.
// So the integer dot is exact and the fp32 epilogue is the reference's, lane by lane.
// Tiles: prefill 4 activation rows x 8 weight rows; decode 1 row x 32 weight rows.
#pragma STDC FP_CONTRACT OFF

#include <immintrin.h>
#include <math.h>
#include <string.h>
#include "ck_matmul.h"

#define T256 __attribute__((target("avx2,fma,f16c")))
#define INLINE static inline __attribute__((always_inline))

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

/// Value classes (see the header comment).
enum { K_U4 = 0, K_U5 = 1, K_Q6 = 2, K_S8 = 3 };

/// Exact integer dots of one 8-row half (`hq` = the block's bytes offset to this half) with one
/// activation block `aq`: dot0 (NSC 1: the whole block; NSC 2: elements 0..15) and dot1
/// (elements 16..31, NSC 2 only). `sum` is the activation block's integer sum (K_S8 only).
T256 INLINE void half_dot(const uint8_t *hq, const int8_t *aq, int32_t sum, const int KIND, __m256i *dot0, __m256i *dot1) {
    const __m256i ones = _mm256_set1_epi16(1);
    if (KIND == K_U4) {
        const __m256i low4 = _mm256_set1_epi8(0x0F);
        __m256i s16 = _mm256_setzero_si256();
        for (int j = 0; j < 4; j++) {
            const __m256i v = _mm256_loadu_si256((const __m256i *)(hq + 64 * j));
            const __m256i lo = _mm256_and_si256(v, low4), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low4);
            s16 = _mm256_add_epi16(s16, _mm256_maddubs_epi16(lo, bcast4(aq + 4 * j)));
            s16 = _mm256_add_epi16(s16, _mm256_maddubs_epi16(hi, bcast4(aq + 16 + 4 * j)));
        }
        *dot0 = _mm256_madd_epi16(s16, ones);
    } else if (KIND == K_U5) {
        __m256i s[2];
        for (int h = 0; h < 2; h++) {
            s[h] = _mm256_setzero_si256();
            for (int j = 4 * h; j < 4 * h + 4; j++)
                s[h] = _mm256_add_epi16(s[h], _mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *)(hq + 64 * j)), bcast4(aq + 4 * j)));
        }
        *dot0 = _mm256_add_epi32(_mm256_madd_epi16(s[0], ones), _mm256_madd_epi16(s[1], ones));
    } else if (KIND == K_Q6) {
        __m256i d[2];
        for (int h = 0; h < 2; h++) {
            __m256i acc = _mm256_setzero_si256();
            for (int j = 4 * h; j < 4 * h + 4; j += 2) {
                __m256i s = _mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *)(hq + 64 * j)), bcast4(aq + 4 * j));
                s = _mm256_add_epi16(s, _mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *)(hq + 64 * (j + 1))), bcast4(aq + 4 * j + 4)));
                acc = _mm256_add_epi32(acc, _mm256_madd_epi16(s, ones));
            }
            d[h] = acc;
        }
        *dot0 = d[0];
        *dot1 = d[1];
    } else {
        const __m256i bias = _mm256_set1_epi8((char)0x80);
        __m256i acc = _mm256_set1_epi32(128 * sum);   // sum(u q) = sum(s q) + 128 sum(q)
        for (int j = 0; j < 8; j++) {
            const __m256i s = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(hq + 64 * j)), bias);
            const __m256i p = _mm256_maddubs_epi16(_mm256_sign_epi8(s, s), _mm256_sign_epi8(bcast4(aq + 4 * j), s));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p, ones));
        }
        *dot0 = acc;
    }
}

/// MT activation rows (from m0) x HT halves of 8 weight rows (from half h0), the whole K.
/// nvalid: valid rows in the last half (rows past n are padding and are not stored).
T256 INLINE void tile(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t m0,
                      int64_t h0, int nvalid, float negoff, const int KIND, const int NSC, const int HASMIN,
                      const int MT, const int HT) {
    const int64_t k = d->k, nb = k / 32, qb = KIND == K_U4 ? 256 : 512;
    const __m256 vneg = _mm256_set1_ps(negoff);
    __m256 acc[HT][MT];
    for (int h = 0; h < HT; h++)
        for (int r = 0; r < MT; r++) acc[h][r] = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; b++) {
        for (int h = 0; h < HT; h++) {
            const int64_t g = (h0 + h) / 2, side = (h0 + h) % 2;
            const uint8_t *hq = w->qs + (g * nb + b) * qb + 32 * side;
            const float *dwp = w->dw + (g * nb + b) * NSC * CK_R + 8 * side;
            const __m256 d0 = _mm256_loadu_ps(dwp);
            const __m256 d1 = NSC == 2 ? _mm256_loadu_ps(dwp + CK_R) : d0;
            const __m256 mw0 = HASMIN ? _mm256_loadu_ps(w->mw + (g * nb + b) * CK_R + 8 * side) : _mm256_mul_ps(d0, vneg);
            const __m256 mw1 = NSC == 2 ? _mm256_mul_ps(d1, vneg) : mw0;
            for (int r = 0; r < MT; r++) {
                const int64_t row = m0 + r;
                const float *meta = a->meta + (row * nb + b) * 4;
                __m256i dot0, dot1 = _mm256_setzero_si256();
                half_dot(hq, a->q + row * k + b * 32, KIND == K_S8 ? a->sums[row * nb + b] : 0, KIND, &dot0, &dot1);
                const __m256 da = _mm256_set1_ps(meta[0]);
                acc[h][r] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(dot0), d0), da, acc[h][r]);
                if (NSC == 2) {
                    acc[h][r] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(dot1), d1), da, acc[h][r]);
                    acc[h][r] = _mm256_fmadd_ps(mw0, _mm256_set1_ps(meta[2]), acc[h][r]);
                    acc[h][r] = _mm256_fmadd_ps(mw1, _mm256_set1_ps(meta[3]), acc[h][r]);
                } else {
                    acc[h][r] = _mm256_fmadd_ps(mw0, _mm256_set1_ps(meta[1]), acc[h][r]);
                }
            }
        }
    }
    for (int h = 0; h < HT; h++) {
        const int valid = h == HT - 1 ? nvalid : 8;
        for (int r = 0; r < MT; r++) {
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

#define TILE(NAME, KIND, NSC, HASMIN, MT, HT)                                                                 \
    T256 static void NAME(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t m0, \
                          int64_t h0, int nvalid, float negoff) {                                             \
        tile(d, w, a, y, m0, h0, nvalid, negoff, KIND, NSC, HASMIN, MT, HT);                                  \
    }
#define TILES(P, KIND, NSC, HASMIN)              \
    TILE(P##_4x1, KIND, NSC, HASMIN, 4, 1)       \
    TILE(P##_2x1, KIND, NSC, HASMIN, 2, 1)       \
    TILE(P##_1x1, KIND, NSC, HASMIN, 1, 1)       \
    TILE(P##_1x4, KIND, NSC, HASMIN, 1, 4)       \
    static const tile_fn P[4] = {P##_4x1, P##_2x1, P##_1x1, P##_1x4};

TILES(t_u4, K_U4, 1, 0)      // Q4_0
TILES(t_u4min, K_U4, 1, 1)   // Q4_1, Q4_K
TILES(t_u5, K_U5, 1, 0)      // Q5_0, MXFP4
TILES(t_q6, K_Q6, 2, 0)      // Q6_K
TILES(t_s8, K_S8, 1, 0)      // Q8_0, MXINT8

/// Halves per L2 chunk in the prefill loop: about 192 KiB of repacked weights.
static int64_t chunk_halves(const ck_format_info *info, int64_t k) {
    const int64_t bytes = (k / 32) * ((info->packed4 ? 128 : 256) + 32 * (info->nsc + info->has_min));
    const int64_t c = (192 * 1024) / (bytes > 0 ? bytes : 1);
    return c < 1 ? 1 : c;
}

T256 void ck_matmul_avx2(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1) {
    const ck_format_info info = ck_weight_format_info(w->format);
    if (!info.int8_path) { ck_matmul_ref(d, w, a, y, n0, n1); return; }
    const tile_fn *t;
    if (info.nsc == 2) t = t_q6;
    else if (info.packed4) t = info.has_min ? t_u4min : t_u4;
    else if (info.off == 128) t = t_s8;
    else t = t_u5;
    const float negoff = (float)(-info.off);
    if (n1 > d->n) n1 = d->n;
    const int64_t h0 = n0 / 8, h1 = (n1 + 7) / 8;
    const int lastvalid = (int)(n1 - (h1 - 1) * 8);
    if (d->m == 1) {
        int64_t h = h0;
        for (; h + 4 <= h1; h += 4) t[3](d, w, a, y, 0, h, h + 4 == h1 ? lastvalid : 8, negoff);
        for (; h < h1; h++) t[2](d, w, a, y, 0, h, h + 1 == h1 ? lastvalid : 8, negoff);
        return;
    }
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
