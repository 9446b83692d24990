// Private to attention_split.c: its AVX2 unit's q8_0 steps, in integer arithmetic.
//
// A q8_0 KV head segment is hd/32 blocks of 32 int8 codes c with one fp16 scale d. Converting
// every code to fp32 (sign-extend, convert, times d) before the FMAs made the q8_0 unit
// compute-bound and as slow per token as fp16 with half the bytes. Here the codes are only
// sign-extended to int16 and multiplied with vpmaddwd (two products summed per int32 lane), in
// exact integer sums scaled once:
//   scores  the query, rounded once per unit to int16 per head, q16 = round(q / qs),
//           qs = max|q| / 32767: s[p] = qs * sum_b d[p][b] * (q16 · c_p over block b), eight
//           rows at a time in the canonical order (score8_q8);
//   values  a block of up to VROWS_Q8 rows, per segment block b, the rows' weights times their
//           scale rounded to int16 against their bound, two rows per vpmaddwd (v_block_q8).
// Both roundings keep 15 bits of the largest value, against the cache's own 8 bits per block of
// K and V: SplitKAttentionTests measure the added error at 1/150 to 1/350 of the cache's.
// Decode microbenchmark (C driver calling ck_attention, AVX2 EPYC, 2 threads, depth 4096,
// interleaved rounds, median ms per token): 30 SmolLM2-shaped q8_0 layers 7.7 -> 5.4,
// 18 Gemma-shaped 6.8 -> 4.1 against the float conversion.
#ifndef CK_ATTENTION_SPLIT_Q8_0_H
#define CK_ATTENTION_SPLIT_Q8_0_H

#include <immintrin.h>
#include "ck_blocks.h"
#include "attention_kv_avx2.h"
#include "avx2_reduce.h"

// GMAX, the most query heads one call serves, comes from attention_split.c.

/// The 256-bit form of the AVX-512 unit's reduce4: per 128-bit half k, lane r = row r's
/// (x[4k] + x[4k+2]) + (x[4k+1] + x[4k+3]) over that half's four lanes of r0 .. r3.
KV_AVX2 __m256 reduce4_q8(__m256 r0, __m256 r1, __m256 r2, __m256 r3) {
    const __m256 a = _mm256_add_ps(_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1));
    const __m256 b = _mm256_add_ps(_mm256_unpacklo_ps(r2, r3), _mm256_unpackhi_ps(r2, r3));
    const __m256d ad = _mm256_castps_pd(a), bd = _mm256_castps_pd(b);
    return _mm256_add_ps(_mm256_castpd_ps(_mm256_unpacklo_pd(ad, bd)), _mm256_castpd_ps(_mm256_unpackhi_pd(ad, bd)));
}

/// Lane i = the sum of the eight int32 lanes of t[i] (exact, so any tree).
KV_AVX2 __m256i hsum8_epi32(const __m256i *t) {
    const __m256i u0 = _mm256_hadd_epi32(_mm256_hadd_epi32(t[0], t[1]), _mm256_hadd_epi32(t[2], t[3]));
    const __m256i u1 = _mm256_hadd_epi32(_mm256_hadd_epi32(t[4], t[5]), _mm256_hadd_epi32(t[6], t[7]));
    return _mm256_add_epi32(_mm256_permute2x128_si256(u0, u1, 0x20), _mm256_permute2x128_si256(u0, u1, 0x31));
}

/// q8_0 scores of G int16 query heads (q16 + i*hd, scales qs[i]) for eight K rows (rows[r], a
/// missing row repeating the last), into sc[i] (lane r = row r's score), in the canonical order
/// (attention_q8_0_scalar.h's q8s_split_score, the AVX-512 unit's): head dims of one or two
/// blocks take each block's exact int32 dot and one FMA by the rows' scales per block; longer
/// heads keep 16 fp32 lanes per row (lane j: the pair of dims 2j, 2j + 1 of each block; lo holds
/// j < 8, hi the rest) reduced by the shuffle tree. A block's codes are sign-extended once for all heads.
KV_AVX2 void score8_q8(const int16_t *q16, const float *qs, int64_t hd, const uint8_t *const *rows, int G, __m256 *sc) {
    __m256 acc[GMAX];
    if (hd <= 64) {
        for (int i = 0; i < G; i++) acc[i] = _mm256_setzero_ps();
        for (int64_t b = 0; b < hd / 32; b++) {
            __m256i t[GMAX][8];
            uint16_t dh[8];
            for (int r = 0; r < 8; r++) {
                const ck_block_q8_0 *x = (const ck_block_q8_0 *)rows[r] + b;
                dh[r] = x->d;
                const __m256i x0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)x->qs));
                const __m256i x1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(x->qs + 16)));
                for (int i = 0; i < G; i++) {
                    const __m256i qa = _mm256_loadu_si256((const __m256i *)(q16 + i * hd + 32 * b));
                    const __m256i qb = _mm256_loadu_si256((const __m256i *)(q16 + i * hd + 32 * b + 16));
                    t[i][r] = _mm256_add_epi32(_mm256_madd_epi16(x0, qa), _mm256_madd_epi16(x1, qb));
                }
            }
            const __m256 d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)dh));
            for (int i = 0; i < G; i++) acc[i] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(hsum8_epi32(t[i])), d, acc[i]);
        }
    } else {
        __m256 lo[GMAX][8], hi[GMAX][8];
        for (int r = 0; r < 8; r++) {
            for (int i = 0; i < G; i++) lo[i][r] = hi[i][r] = _mm256_setzero_ps();
            for (int64_t b = 0; b < hd / 32; b++) {
                const ck_block_q8_0 *x = (const ck_block_q8_0 *)rows[r] + b;
                const __m256i x0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)x->qs));
                const __m256i x1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(x->qs + 16)));
                const __m256 d = _mm256_set1_ps(_cvtsh_ss(x->d));
                for (int i = 0; i < G; i++) {
                    const __m256i qa = _mm256_loadu_si256((const __m256i *)(q16 + i * hd + 32 * b));
                    const __m256i qb = _mm256_loadu_si256((const __m256i *)(q16 + i * hd + 32 * b + 16));
                    lo[i][r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_madd_epi16(x0, qa)), d, lo[i][r]);
                    hi[i][r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_madd_epi16(x1, qb)), d, hi[i][r]);
                }
            }
        }
        for (int i = 0; i < G; i++) {
            // S0, S1 of rows 0-3 (a) and 4-7 (a2) in the 128-bit halves; S2, S3 likewise in b, b2.
            const __m256 a = reduce4_q8(lo[i][0], lo[i][1], lo[i][2], lo[i][3]), a2 = reduce4_q8(lo[i][4], lo[i][5], lo[i][6], lo[i][7]);
            const __m256 b = reduce4_q8(hi[i][0], hi[i][1], hi[i][2], hi[i][3]), b2 = reduce4_q8(hi[i][4], hi[i][5], hi[i][6], hi[i][7]);
            const __m256 s01 = _mm256_add_ps(_mm256_permute2f128_ps(a, a2, 0x20), _mm256_permute2f128_ps(a, a2, 0x31));
            const __m256 s23 = _mm256_add_ps(_mm256_permute2f128_ps(b, b2, 0x20), _mm256_permute2f128_ps(b, b2, 0x31));
            acc[i] = _mm256_add_ps(s01, s23);
        }
    }
    for (int i = 0; i < G; i++) sc[i] = _mm256_mul_ps(acc[i], _mm256_set1_ps(qs[i]));
}

/// q8_0 V rows per block: a block's weights are rounded against their own bound and its int32
/// sums (at most 32 row pairs * 2 * 127 * 32767 per lane, below 2^28) scaled back once. Decode
/// microbenchmark (AVX2 EPYC, 2 threads, depth 4096, interleaved rounds, median ms per token for
/// 30 SmolLM2-shaped / 18 Gemma-shaped layers): 16 rows 6.5 / 4.7, 32 rows 5.5 / 4.4, 64 rows
/// 5.4 / 4.1.
enum { VROWS_Q8 = 64 };

/// q8_0: o_i += sum_{p in [b0, b1)} w_i[p] * V_p for the G heads (w_i = w + i*len, o_i = o + i*hd)
/// of one KV head (vg: its segment in the range's first row), b1 - b0 <= VROWS_Q8. Per block b of
/// the segment, the rows' weights times their block scale, u[p] = w_i[p] * d[p][b], are rounded to
/// int16 against the bound W_i * D_b (W_i = max_p w_i[p], D_b = max_p d[p][b]):
///   U[p] = round(32767 * u[p] / (W_i D_b)),  o_i[e] += W_i D_b / 32767 * sum_p U[p] c_p[e].
/// The codes of two rows are interleaved and sign-extended to int16 once for all heads, so one
/// vpmaddwd per head adds both rows into exact int32 lanes. An odd last row pairs with itself at
/// weight zero. Meanwhile pf_bytes from pf are prefetched, spread over the block's chunks.
KV_AVX2 void v_block_q8(const float *w, int64_t len, const uint8_t *vg, int64_t row_bytes, int64_t b0, int64_t b1,
                        int G, float *o, int64_t hd, const uint8_t *pf, int64_t pf_bytes) {
    const int n = (int)(b1 - b0), n2 = (n + 1) & ~1;
    const int64_t pf_step = (pf_bytes / (hd / 16) + 63) & ~(int64_t)63;
    const uint8_t *row[VROWS_Q8];
    for (int r = 0; r < n2; r++) row[r] = vg + (b0 + (r < n ? r : n - 1)) * row_bytes;
    float wt[GMAX][VROWS_Q8], wmax[GMAX];     // weights, zero past n
    for (int i = 0; i < G; i++) {
        const float *wi = w + i * len + b0;
        __m256 mx = _mm256_setzero_ps();
        for (int r = 0; r < VROWS_Q8; r += 8) {
            __m256 x;
            if (r + 8 <= n) x = _mm256_loadu_ps(wi + r);
            else {
                float t[8] = {0};
                for (int k = r; k < n; k++) t[k - r] = wi[k];
                x = _mm256_loadu_ps(t);
            }
            _mm256_storeu_ps(wt[i] + r, x);
            mx = _mm256_max_ps(mx, x);
        }
        wmax[i] = ck_hmax256(mx);
    }
    for (int64_t b = 0; b < hd / 32; b++) {
        const int64_t off = b * (int64_t)sizeof(ck_block_q8_0);
        uint16_t dh[VROWS_Q8] = {0};            // the rows' block scales, zero past n
        for (int r = 0; r < n; r++) dh[r] = ((const ck_block_q8_0 *)(row[r] + off))->d;
        float dv[VROWS_Q8];
        __m256 dm = _mm256_setzero_ps();
        for (int r = 0; r < VROWS_Q8; r += 8) {
            const __m256 d8 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(dh + r)));
            _mm256_storeu_ps(dv + r, d8);
            dm = _mm256_max_ps(dm, d8);
        }
        const float dmax = ck_hmax256(dm);
        int32_t pairs[GMAX][VROWS_Q8 / 2];   // (U[2k], U[2k+1]) as the low and high halves
        float back[GMAX];
        for (int i = 0; i < G; i++) {
            const float bound = wmax[i] * dmax;
            const __m256 f = _mm256_set1_ps(bound > 0 ? 32767.0f / bound : 0.0f);
            back[i] = bound / 32767.0f;
            for (int r = 0; r < n2; r += 16) {
                const __m256i u0 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_mul_ps(_mm256_loadu_ps(wt[i] + r), _mm256_loadu_ps(dv + r)), f));
                const __m256i u1 = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_mul_ps(_mm256_loadu_ps(wt[i] + r + 8), _mm256_loadu_ps(dv + r + 8)), f));
                _mm256_storeu_si256((__m256i *)(pairs[i] + r / 2), _mm256_permute4x64_epi64(_mm256_packs_epi32(u0, u1), 0xD8));
            }
        }
        for (int c = 0; c < 32; c += 16) {
            if (pf_bytes > 0) {
                const int64_t nb = pf_step < pf_bytes ? pf_step : pf_bytes;
                kv_prefetch(pf, nb);
                pf += nb;
                pf_bytes -= nb;
            }
            __m256i acc[GMAX][2];
            for (int i = 0; i < G; i++) acc[i][0] = acc[i][1] = _mm256_setzero_si256();
            for (int r = 0; r < n2; r += 2) {
                const __m128i a = _mm_loadu_si128((const __m128i *)(((const ck_block_q8_0 *)(row[r] + off))->qs + c));
                const __m128i e = _mm_loadu_si128((const __m128i *)(((const ck_block_q8_0 *)(row[r + 1] + off))->qs + c));
                const __m256i x0 = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(a, e));
                const __m256i x1 = _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(a, e));
                for (int i = 0; i < G; i++) {
                    const __m256i u = _mm256_set1_epi32(pairs[i][r / 2]);
                    acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_madd_epi16(x0, u));
                    acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_madd_epi16(x1, u));
                }
            }
            for (int i = 0; i < G; i++) {
                float *oi = o + i * hd + 32 * b + c;
                const __m256 k = _mm256_set1_ps(back[i]);
                _mm256_storeu_ps(oi, _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc[i][0]), k, _mm256_loadu_ps(oi)));
                _mm256_storeu_ps(oi + 8, _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc[i][1]), k, _mm256_loadu_ps(oi + 8)));
            }
        }
    }
}

#endif
