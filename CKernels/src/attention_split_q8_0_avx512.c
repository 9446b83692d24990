// The split-K decode unit (attention_split.c) over a q8_0 cache on 16-lane vectors with
// AVX512-VNNI, for the AVX-512 paths. Same arithmetic as the AVX2 q8_0 unit
// (attention_split_q8_0.h): the query rounded to int16 per head, a K block's 32 codes meeting it in
// exact int32 sums; V blocks' weights times their block scales rounded to int16 against their
// bound, two rows per int32 lane. What changes is the work per byte, which made the AVX2 unit
// as slow per position as fp16 on half the bytes (in cache, 1 thread, 2048 positions, SmolLM2
// shape: 0.064 ms either format):
//   scores  one vpdpwssd per K block and head leaves 16 int32 lanes; converted and scaled by the
//           row's block scale they accumulate over the head dim in one fp32 vector per row and
//           head, and 16 rows' vectors reduce to 16 scores with a shuffle tree (2.8 shuffles and
//           adds per row and head) instead of a horizontal sum each; head dims of one or two
//           blocks reduce each block's int32 lanes exactly and scale 16 block dots at once
//           (score_block_exact);
//   values  a pair of rows fills a zmm with the 32 dims of a block, codes interleaved as int16
//           pairs, and one vpdpwssd per head adds both rows' weighted codes for 16 of them.
// Every fp32 step is the canonical one (attention_q8_0_scalar.h, which ref runs and the AVX2 unit
// follows), the integer sums being exact, so every path gives the same bits.
// attention_split_q8_0_avx512_emu.c compiles this file again against SIMDe.
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: AVX2 / AVX-512 / AMX intrinsics
#include "ck_blocks.h"
#include "attention_split_avx512.h"

/// K rows per score block (one 16-lane vector of scores per head); V rows per weight block: its
/// int32 sums stay below 2^31 (32 row pairs * 2 * 127 * 32767 < 2^29 per lane).
enum { KROWS = 16, VROWS = 64 };
/// K rows ahead that the score pass prefetches (see the AVX2 unit's PREFETCH_ROWS).
enum { PREFETCH_ROWS = 16 };

/// q16[h][e] = round(q[h][e] / qs[h]), qs[h] = max_e |q[h][e]| / 32767 (zero for a zero head),
/// as the AVX2 unit's quantize_query (hd a multiple of 16; lrintf's rounding, to nearest even) and
/// with its bits, on 16 lanes. Not a call to that function: the SIMDe build of this file has no
/// AVX2 target to inline it into. A scalar loop here (an lrintf per element) took a 256-position
/// unit from 0.006 to 0.009 ms (SmolLM2 shape, in cache, 1 thread).
T512 INLINE void quantize_query16(const float *q, int64_t heads, int64_t hd, int16_t *q16, float *qs) {
    for (int64_t h = 0; h < heads; h++) {
        const float *qh = q + h * hd;
        __m512 mx = _mm512_setzero_ps();
        for (int64_t e = 0; e < hd; e += 16) mx = _mm512_max_ps(mx, _mm512_abs_ps(_mm512_loadu_ps(qh + e)));
        const float amax = _mm512_reduce_max_ps(mx);
        const __m512 inv = _mm512_set1_ps(amax > 0 ? 32767.0f / amax : 0.0f);
        for (int64_t e = 0; e < hd; e += 16)
            _mm256_storeu_si256((__m256i *)(q16 + h * hd + e), _mm512_cvtsepi32_epi16(_mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(qh + e), inv))));
        qs[h] = amax / 32767.0f;
    }
}

/// One K row segment's 16-lane partial scores for the G heads: r[i] lanes sum to q16_i . k / qs_i.
T512 INLINE void row_partials(const int16_t *q16, int64_t hd, const uint8_t *seg, const int G, __m512 *r) {
    UNROLL for (int i = 0; i < G; i++) r[i] = _mm512_setzero_ps();
    for (int64_t b = 0; b < hd / 32; b++) {
        const ck_block_q8_0 *x = (const ck_block_q8_0 *)seg + b;
        const __m512i c = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)x->qs));
        const __m512 d = _mm512_cvtph_ps(_mm256_set1_epi16((short)x->d));
        UNROLL for (int i = 0; i < G; i++) {
            const __m512i t = _mm512_dpwssd_epi32(_mm512_setzero_si512(), c, _mm512_loadu_si512(q16 + i * hd + 32 * b));
            r[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(t), d, r[i]);
        }
    }
}

/// The 128-bit lanes of (a, b) that imm picks (vshuff32x4).
#define SHUF128(a, b, imm) _mm512_castsi512_ps(_mm512_shuffle_i32x4(_mm512_castps_si512(a), _mm512_castps_si512(b), imm))

/// Four rows' partials r0..r3 -> one vector whose 128-bit lane j holds rows 0..3's sums over
/// their lane j (two levels of the tree).
T512 INLINE __m512 reduce4(__m512 r0, __m512 r1, __m512 r2, __m512 r3) {
    const __m512 a = _mm512_add_ps(_mm512_unpacklo_ps(r0, r1), _mm512_unpackhi_ps(r0, r1));   // per lane: r0 r1 r0 r1
    const __m512 b = _mm512_add_ps(_mm512_unpacklo_ps(r2, r3), _mm512_unpackhi_ps(r2, r3));
    const __m512d ad = _mm512_castps_pd(a), bd = _mm512_castps_pd(b);
    return _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(ad, bd)), _mm512_castpd_ps(_mm512_unpackhi_pd(ad, bd)));
}

/// Four reduce4 results (rows 0-3, 4-7, 8-11, 12-15) -> lane r = row r's score (the last two levels).
T512 INLINE __m512 reduce16(__m512 e0, __m512 e1, __m512 e2, __m512 e3) {
    const __m512 f0 = _mm512_add_ps(SHUF128(e0, e1, 0x88), SHUF128(e0, e1, 0xDD));
    const __m512 f1 = _mm512_add_ps(SHUF128(e2, e3, 0x88), SHUF128(e2, e3, 0xDD));
    return _mm512_add_ps(SHUF128(f0, f1, 0x88), SHUF128(f0, f1, 0xDD));
}

/// Scores s[i*len + p] of G query heads (q16 + i*hd, scales qs[i]) for rows [p, p + n) of one KV
/// head (kg: its segment in the range's first row), n <= 16; missing rows repeat the last one and
/// are not stored.
T512 INLINE void score_block(const int16_t *q16, const float *qs, int64_t hd, const uint8_t *kg, int64_t row_bytes,
                             int64_t p, int64_t n, const int G, float *s, int64_t len) {
    __m512 e[4][GW];
    UNROLL for (int quad = 0; quad < 4; quad++) {
        __m512 r[4][GW];
        UNROLL for (int k = 0; k < 4; k++) {
            const int64_t row = 4 * quad + k < n ? 4 * quad + k : n - 1;
            row_partials(q16, hd, kg + (p + row) * row_bytes, G, r[k]);
        }
        UNROLL for (int i = 0; i < G; i++) e[quad][i] = reduce4(r[0][i], r[1][i], r[2][i], r[3][i]);
    }
    const __mmask16 keep = (__mmask16)((1u << n) - 1);
    UNROLL for (int i = 0; i < G; i++) {
        const __m512 sc = _mm512_mul_ps(reduce16(e[0][i], e[1][i], e[2][i], e[3][i]), _mm512_set1_ps(qs[i]));
        _mm512_mask_storeu_ps(s + i * len + p, keep, sc);
    }
}

/// reduce4 on exact int32 lanes.
T512 INLINE __m512i reduce4_epi32(__m512i r0, __m512i r1, __m512i r2, __m512i r3) {
    const __m512i a = _mm512_add_epi32(_mm512_unpacklo_epi32(r0, r1), _mm512_unpackhi_epi32(r0, r1));
    const __m512i b = _mm512_add_epi32(_mm512_unpacklo_epi32(r2, r3), _mm512_unpackhi_epi32(r2, r3));
    return _mm512_add_epi32(_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b));
}

/// reduce16 on exact int32 lanes.
T512 INLINE __m512i reduce16_epi32(__m512i e0, __m512i e1, __m512i e2, __m512i e3) {
    const __m512i f0 = _mm512_add_epi32(_mm512_shuffle_i32x4(e0, e1, 0x88), _mm512_shuffle_i32x4(e0, e1, 0xDD));
    const __m512i f1 = _mm512_add_epi32(_mm512_shuffle_i32x4(e2, e3, 0x88), _mm512_shuffle_i32x4(e2, e3, 0xDD));
    return _mm512_add_epi32(_mm512_shuffle_i32x4(f0, f1, 0x88), _mm512_shuffle_i32x4(f0, f1, 0xDD));
}

/// score_block for head dims of one or two blocks (hd <= 64): per block, the 16 rows' vpdpwssd
/// lanes reduce through the tree as exact int32 (|sum| <= 32 * 127 * 32767 < 2^28), and only the
/// 16 block dots are converted and scaled, by the rows' block scales gathered into one vector.
/// That moves the conversion and the FMA from every row to every 16 rows, for one tree per block
/// instead of one per row segment: 4 SmolLM2-shaped layers (hd 64) of 4096 positions from cache,
/// 1 thread, 0.345 -> 0.308-0.326 ms. With more blocks the extra trees cost more than that
/// saves (hd 128: 0.477 -> 0.524 ms; Gemma's 256: 0.318 -> 0.340-0.363), so those keep
/// score_block.
T512 INLINE void score_block_exact(const int16_t *q16, const float *qs, int64_t hd, const uint8_t *kg, int64_t row_bytes,
                                   int64_t p, int64_t n, const int G, float *s, int64_t len) {
    __m512 acc[GW];
    UNROLL for (int i = 0; i < G; i++) acc[i] = _mm512_setzero_ps();
    for (int64_t b = 0; b < hd / 32; b++) {
        const int64_t off = b * (int64_t)sizeof(ck_block_q8_0);
        uint16_t dh[16];   // the 16 rows' block scales (missing rows repeat the last one)
        __m512i e[4][GW];
        UNROLL for (int quad = 0; quad < 4; quad++) {
            __m512i r[4][GW];
            UNROLL for (int k = 0; k < 4; k++) {
                const int64_t row = 4 * quad + k < n ? 4 * quad + k : n - 1;
                const ck_block_q8_0 *x = (const ck_block_q8_0 *)(kg + (p + row) * row_bytes + off);
                dh[4 * quad + k] = x->d;
                const __m512i c = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)x->qs));
                UNROLL for (int i = 0; i < G; i++) r[k][i] = _mm512_dpwssd_epi32(_mm512_setzero_si512(), c, _mm512_loadu_si512(q16 + i * hd + 32 * b));
            }
            UNROLL for (int i = 0; i < G; i++) e[quad][i] = reduce4_epi32(r[0][i], r[1][i], r[2][i], r[3][i]);
        }
        const __m512 d = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)dh));
        UNROLL for (int i = 0; i < G; i++)
            acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(reduce16_epi32(e[0][i], e[1][i], e[2][i], e[3][i])), d, acc[i]);
    }
    const __mmask16 keep = (__mmask16)((1u << n) - 1);
    UNROLL for (int i = 0; i < G; i++) _mm512_mask_storeu_ps(s + i * len + p, keep, _mm512_mul_ps(acc[i], _mm512_set1_ps(qs[i])));
}

/// o_i += sum_{p in [b0, b1)} w_i[p] * V_p for the G heads (w_i = w + i*len, o_i = o + i*hd) of one
/// KV head (vg: its segment in the range's first row), b1 - b0 <= VROWS. Per block b of the
/// segment the rows' weights times their block scale, u[p] = w_i[p] d[p][b], are rounded to int16
/// against their bound W_i D_b (as the AVX2 unit's v_block_q8):
///   U[p] = round(32767 u[p] / (W_i D_b)),  o_i[e] += W_i D_b / 32767 * sum_p U[p] c_p[e].
/// Two rows' 32 codes of block b interleave into int16 pairs (dims 0-7 and 16-23 in one zmm, 8-15
/// and 24-31 in the other), so one vpdpwssd per head and zmm adds both rows; an odd last row pairs
/// with itself at weight zero. pf_bytes from pf are prefetched, spread over the segment's blocks.
T512 INLINE void v_block(const float *w, int64_t len, const uint8_t *vg, int64_t row_bytes, int64_t b0, int64_t b1,
                         const int G, float *o, int64_t hd, const uint8_t *pf, int64_t pf_bytes) {
    const int n = (int)(b1 - b0), n2 = (n + 1) & ~1;
    const int64_t blocks = hd / 32, pf_step = (pf_bytes / blocks + 63) & ~(int64_t)63;
    float wt[GW][VROWS], wmax[GW];   // the weights, zero past n
    UNROLL for (int i = 0; i < G; i++) {
        const float *wi = w + i * len + b0;
        __m512 mx = _mm512_setzero_ps();
        for (int r = 0; r < VROWS; r += 16) {
            const int left = n - r;
            const __mmask16 m = left >= 16 ? (__mmask16)0xFFFF : left > 0 ? (__mmask16)((1u << left) - 1) : 0;
            const __m512 x = _mm512_maskz_loadu_ps(m, wi + r);
            _mm512_storeu_ps(wt[i] + r, x);
            mx = _mm512_max_ps(mx, x);
        }
        wmax[i] = _mm512_reduce_max_ps(mx);
    }
    for (int64_t b = 0; b < blocks; b++) {
        if (pf_bytes > 0) {
            const int64_t nb = pf_step < pf_bytes ? pf_step : pf_bytes;
            kv_prefetch(pf, nb);
            pf += nb;
            pf_bytes -= nb;
        }
        const int64_t off = b * (int64_t)sizeof(ck_block_q8_0);
        uint16_t dh[VROWS] = {0};   // the rows' block scales, zero past n
        for (int r = 0; r < n; r++) dh[r] = ((const ck_block_q8_0 *)(vg + (b0 + r) * row_bytes + off))->d;
        float dv[VROWS];
        __m512 dm = _mm512_setzero_ps();
        for (int r = 0; r < VROWS; r += 16) {
            const __m512 d16 = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(dh + r)));
            _mm512_storeu_ps(dv + r, d16);
            dm = _mm512_max_ps(dm, d16);
        }
        const float dmax = _mm512_reduce_max_ps(dm);
        int16_t u[GW][VROWS];   // U[p], read as int32 pairs (U[2k], U[2k+1])
        float back[GW];
        UNROLL for (int i = 0; i < G; i++) {
            const float bound = wmax[i] * dmax;
            const __m512 f = _mm512_set1_ps(bound > 0 ? 32767.0f / bound : 0.0f);
            back[i] = bound / 32767.0f;
            for (int r = 0; r < n2; r += 16) {
                const __m512 x = _mm512_mul_ps(_mm512_mul_ps(_mm512_loadu_ps(wt[i] + r), _mm512_loadu_ps(dv + r)), f);
                _mm256_storeu_si256((__m256i *)(u[i] + r), _mm512_cvtsepi32_epi16(_mm512_cvtps_epi32(x)));
            }
        }
        __m512i acc[GW][2];
        UNROLL for (int i = 0; i < G; i++) acc[i][0] = acc[i][1] = _mm512_setzero_si512();
        for (int r = 0; r < n2; r += 2) {
            const uint8_t *ra = vg + (b0 + r) * row_bytes + off, *re = vg + (b0 + (r + 1 < n ? r + 1 : r)) * row_bytes + off;
            const __m256i a = _mm256_loadu_si256((const __m256i *)((const ck_block_q8_0 *)ra)->qs);
            const __m256i e = _mm256_loadu_si256((const __m256i *)((const ck_block_q8_0 *)re)->qs);
            const __m512i x0 = _mm512_cvtepi8_epi16(_mm256_unpacklo_epi8(a, e));
            const __m512i x1 = _mm512_cvtepi8_epi16(_mm256_unpackhi_epi8(a, e));
            UNROLL for (int i = 0; i < G; i++) {
                int32_t pair;
                __builtin_memcpy(&pair, u[i] + r, sizeof pair);
                const __m512i up = _mm512_set1_epi32(pair);
                acc[i][0] = _mm512_dpwssd_epi32(acc[i][0], x0, up);
                acc[i][1] = _mm512_dpwssd_epi32(acc[i][1], x1, up);
            }
        }
        UNROLL for (int i = 0; i < G; i++) {
            float *oi = o + i * hd + 32 * b;
            const __m512 k = _mm512_set1_ps(back[i]);
            const __m512i lo = _mm512_shuffle_i32x4(acc[i][0], acc[i][1], 0x44), hi = _mm512_shuffle_i32x4(acc[i][0], acc[i][1], 0xEE);
            _mm512_storeu_ps(oi, _mm512_fmadd_ps(_mm512_cvtepi32_ps(lo), k, _mm512_loadu_ps(oi)));
            _mm512_storeu_ps(oi + 16, _mm512_fmadd_ps(_mm512_cvtepi32_ps(hi), k, _mm512_loadu_ps(oi + 16)));
        }
    }
}

/// The K pass's step: scores of heads h .. h+G-1 for rows [b0, b1) (b1 - b0 <= KROWS).
T512 static void k_step(const range_job *j, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) {
    const int64_t hd = j->hd;
    const uint8_t *kg = j->k + g * j->head_bytes;
    if (hd <= 64) { FOR_G(G, score_block_exact(j->q16 + h * hd, j->qs + h, hd, kg, j->row_bytes, b0, b1 - b0, G_, j->s + h * j->len, j->len)) }
    else { FOR_G(G, score_block(j->q16 + h * hd, j->qs + h, hd, kg, j->row_bytes, b0, b1 - b0, G_, j->s + h * j->len, j->len)) }
}

/// The V pass's step: one block of up to VROWS rows for heads h .. h+G-1, the next block's rows
/// prefetched a few lines per segment block over its KV heads' passes (by each KV head's first).
T512 static void v_step(const range_job *j, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) {
    const uint8_t *pf;
    const int64_t pf_bytes = v_step_prefetch(j, g, h, b1, VROWS, &pf);
    FOR_G(G, v_block(j->s + h * j->len, j->len, j->v + g * j->head_bytes, j->row_bytes, b0, b1, G_, j->o + h * j->hd, j->hd, pf, pf_bytes))
}

T512 void ck_attention_split_q8_0_avx512(const range_job *j) {
    quantize_query16(j->q, j->heads, j->hd, j->q16, j->qs);
    split_pass(j, KROWS, j->k, PREFETCH_ROWS, k_step);
    range_softmax16(j);
    split_pass(j, VROWS, 0, 0, v_step);
}
#endif
