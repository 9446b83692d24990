// The split-K decode unit (attention_split.c) over an fp16 cache on 16-lane vectors, for the
// AVX-512 paths: the AVX2 unit's structure (K in blocks of eight rows, then the softmax, here on
// 16 lanes (attention_split_avx512.h), then V in blocks of eight rows, every KV head's query
// heads up to four at a time so each row segment is converted once for them) with half the
// conversions and FMAs per element. A score is one 16-lane FMA chain over the head dim, folded to
// 8 lanes, and four rows' folds reduce to four scores with three hadds; the weighted V keeps the
// four heads' accumulators for 64 dims in registers (16 of the 32) over a block. Every sum is the
// canonical order's (docs/kernels.md): a 16-lane chain folded to 8 is the AVX2 unit's two 8-lane
// chains added, the hadds its tree, one V chain per output; so its bits are the AVX2 unit's and
// ref's. attention_split_avx512_emu.c compiles this file again against SIMDe.
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: AVX2 / AVX-512 / AMX intrinsics
#include "attention_split_avx512.h"

/// Rows per K and V block, and how far ahead of a block its rows are prefetched (as the AVX2
/// unit: the passes read a block KV head by KV head, which the hardware prefetchers do not follow;
/// prefetch_rows, attention_prefetch.h).
enum { BLOCK = 8, PREFETCH_ROWS = 16 };

/// The upper 8 lanes of v plus its lower 8.
T512 INLINE __m256 fold(__m512 v) {
    return _mm256_add_ps(_mm512_castps512_ps256(v), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}

/// out[i] (8 lanes summing to q_i . k) for the G query heads q + i*hd against one fp16 K row
/// segment.
T512 INLINE void row_dots(const float *q, int64_t hd, const uint8_t *seg, const int G, __m256 *out) {
    __m512 acc[GW];
    UNROLL for (int i = 0; i < G; i++) acc[i] = _mm512_setzero_ps();
    for (int64_t d = 0; d < hd; d += 16) {
        const __m512 k = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(seg + 2 * d)));
        UNROLL for (int i = 0; i < G; i++) acc[i] = _mm512_fmadd_ps(_mm512_loadu_ps(q + i * hd + d), k, acc[i]);
    }
    UNROLL for (int i = 0; i < G; i++) out[i] = fold(acc[i]);
}

/// Lane r of the result = the horizontal sum of a[r], r < 4.
T512 INLINE __m128 hsum4(const __m256 *a) {
    const __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(a[0], a[1]), _mm256_hadd_ps(a[2], a[3]));
    return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

/// Scores s[i*len + p] of G query heads for rows [p0, p1) of one KV head (kg: its segment in the
/// range's first row), four rows at a time; a last group of fewer repeats its last row and keeps
/// only its own scores.
T512 INLINE void score_rows(const float *q, int64_t hd, const uint8_t *kg, int64_t row_bytes, int64_t p0, int64_t p1,
                            const int G, float *s, int64_t len) {
    for (int64_t p = p0; p < p1; p += 4) {
        const int64_t n = p1 - p < 4 ? p1 - p : 4;
        __m256 acc[GW][4];
        UNROLL for (int r = 0; r < 4; r++) {
            __m256 a[GW];
            row_dots(q, hd, kg + (p + (r < n ? r : n - 1)) * row_bytes, G, a);
            UNROLL for (int i = 0; i < G; i++) acc[i][r] = a[i];
        }
        UNROLL for (int i = 0; i < G; i++) {
            const __m128 sc = hsum4(acc[i]);
            if (n == 4) _mm_storeu_ps(s + i * len + p, sc);
            else {
                float lanes[4];
                _mm_storeu_ps(lanes, sc);
                for (int64_t r = 0; r < n; r++) s[i * len + p + r] = lanes[r];
            }
        }
    }
}

/// o_i[d0 .. d0 + 16 NC) += sum_{p in [p0, p1)} w_i[p] * V_p[same dims] for the G heads (w_i =
/// w + i*len, o_i = o + i*hd), one KV head (vg: its segment in the range's first row); each row's
/// NC vectors are converted once for all G heads.
T512 INLINE void v_rows(const float *w, int64_t len, const uint8_t *vg, int64_t row_bytes, int64_t d0, int64_t p0,
                        int64_t p1, const int G, const int NC, float *o, int64_t hd) {
    __m512 acc[GW][4];
    UNROLL for (int i = 0; i < G; i++) UNROLL for (int c = 0; c < NC; c++) acc[i][c] = _mm512_loadu_ps(o + i * hd + d0 + 16 * c);
    for (int64_t p = p0; p < p1; p++) {
        const uint8_t *row = vg + p * row_bytes + 2 * d0;
        __m512 v[4];
        UNROLL for (int c = 0; c < NC; c++) v[c] = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(row + 32 * c)));
        UNROLL for (int i = 0; i < G; i++) {
            const __m512 wp = _mm512_set1_ps(w[i * len + p]);
            UNROLL for (int c = 0; c < NC; c++) acc[i][c] = _mm512_fmadd_ps(wp, v[c], acc[i][c]);
        }
    }
    UNROLL for (int i = 0; i < G; i++) UNROLL for (int c = 0; c < NC; c++) _mm512_storeu_ps(o + i * hd + d0 + 16 * c, acc[i][c]);
}

/// The K pass's step: scores of heads h .. h+G-1 for rows [b0, b1).
T512 static void k_step(const range_job *j, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) {
    FOR_G(G, score_rows(j->q + h * j->hd, j->hd, j->k + g * j->head_bytes, j->row_bytes, b0, b1, G_, j->s + h * j->len, j->len))
}

/// The V pass's step: heads h .. h+G-1 over rows [b0, b1), 64 dims at a time, then 16.
T512 static void v_step(const range_job *j, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) {
    const int64_t hd = j->hd, len = j->len;
    const uint8_t *vg = j->v + g * j->head_bytes;
    int64_t d0 = 0;
    for (; d0 + 64 <= hd; d0 += 64) { FOR_G(G, v_rows(j->s + h * len, len, vg, j->row_bytes, d0, b0, b1, G_, 4, j->o + h * hd, hd)) }
    for (; d0 < hd; d0 += 16) { FOR_G(G, v_rows(j->s + h * len, len, vg, j->row_bytes, d0, b0, b1, G_, 1, j->o + h * hd, hd)) }
}

T512 void ck_attention_split_f16_avx512(const range_job *j) {
    if (j->hd % 16 != 0) { ck_attention_split_f16_avx2(j); return; }
    split_pass(j, BLOCK, j->k, PREFETCH_ROWS, k_step);
    range_softmax16(j);
    split_pass(j, BLOCK, j->v, PREFETCH_ROWS, v_step);
}
#endif
