// The FMA-bound phases of the blocked prefill attention (attention_tiles.h) on 16-lane vectors:
// the same tiles as attention_tiled.c's AVX2 ones at twice the width, 32 registers. The query
// lanes of a unit (QL = 48) are three vectors, so a score tile covers six positions x every lane
// (18 accumulators; per d three loads and six broadcasts feed 18 FMAs) and a value tile six
// lanes x 64 dims (24 accumulators; per position four loads and six broadcasts feed 24 FMAs).
// The q8_0 integer scores (score_tile_q8_0) take four positions per tile: 12 int32 sums and 12
// fp32 accumulators.
// attention_tiles_avx512_emu.c compiles this file again against SIMDe for CPUs without AVX-512.
#include "attention_tiles.h"

#include "avx512_target.h"

/// S[p][16v .. 16(v+NV)) for NP positions from kc; d ascending.
T512 INLINE void score_tile(const float *kc, const float *qt, float *s, int64_t hd, const int NP, const int NV) {
    __m512 acc[6][3];
    UNROLL for (int j = 0; j < NP; j++) UNROLL for (int u = 0; u < NV; u++) acc[j][u] = _mm512_setzero_ps();
    for (int64_t dd = 0; dd < hd; dd++) {
        __m512 q[3];
        UNROLL for (int u = 0; u < NV; u++) q[u] = _mm512_loadu_ps(qt + dd * QL + 16 * u);
        UNROLL for (int j = 0; j < NP; j++) {
            const __m512 kb = _mm512_set1_ps(kc[j * hd + dd]);
            UNROLL for (int u = 0; u < NV; u++) acc[j][u] = _mm512_fmadd_ps(kb, q[u], acc[j][u]);
        }
    }
    UNROLL for (int j = 0; j < NP; j++) UNROLL for (int u = 0; u < NV; u++) _mm512_storeu_ps(s + j * QL + 16 * u, acc[j][u]);
}

T512 INLINE void scores_nv(const float *kc, const float *qt, float *s, int64_t cn, int64_t hd, row_prefetch *pf, const int NV) {
    int64_t p = 0;
    for (; p + 6 <= cn; p += 6) { score_tile(kc + p * hd, qt, s + p * QL, hd, 6, NV); prefetch_step(pf); }
    for (; p < cn; p++) { score_tile(kc + p * hd, qt, s + p * QL, hd, 1, NV); prefetch_step(pf); }
}

T512 void ck_attention_scores_avx512(const float *kc, const float *qt, float *s, int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf) {
    const int64_t nv = (nl + 15) / 16;   // lanes up to 16 * nv: padding queries, never read
    prefetch_spread(pf, cn / 6 + cn % 6);
    if (nv == 3) scores_nv(kc, qt, s, cn, hd, pf, 3);
    else if (nv == 2) scores_nv(kc, qt, s, cn, hd, pf, 2);
    else scores_nv(kc, qt, s, cn, hd, pf, 1);
}

/// S[p][16v .. 16(v+NV)) for NP positions of int16 K codes (attention_scores_q8_0_fn): per block
/// one vpdpwssd per (position, pair of dims, vector) into exact int32 sums, then one FMA by the
/// block scale; NP = 4 keeps the 12 int32 and 12 fp32 accumulators in registers.
T512 INLINE void score_tile_q8_0(const int16_t *kc, const float *ks, const int16_t *qt, const float *qs, float *s,
                                 const int64_t hd, const int NP, const int NV) {
    __m512 acc[4][3];
    UNROLL for (int j = 0; j < NP; j++) UNROLL for (int u = 0; u < NV; u++) acc[j][u] = _mm512_setzero_ps();
    for (int64_t b = 0; b < hd / 32; b++) {
        __m512i t[4][3];
        UNROLL for (int j = 0; j < NP; j++) UNROLL for (int u = 0; u < NV; u++) t[j][u] = _mm512_setzero_si512();
        UNROLL for (int e = 0; e < 16; e++) {   // dims 32b + 2e, 32b + 2e + 1
            const int16_t *qp = qt + (b * 16 + e) * 2 * QL;
            __m512i q[3];
            UNROLL for (int u = 0; u < NV; u++) q[u] = _mm512_loadu_si512(qp + 32 * u);
            UNROLL for (int j = 0; j < NP; j++) {
                int32_t pair;
                __builtin_memcpy(&pair, kc + j * hd + 32 * b + 2 * e, sizeof pair);
                const __m512i kb = _mm512_set1_epi32(pair);
                UNROLL for (int u = 0; u < NV; u++) t[j][u] = _mm512_dpwssd_epi32(t[j][u], kb, q[u]);
            }
        }
        UNROLL for (int j = 0; j < NP; j++) {
            const __m512 sc = _mm512_set1_ps(ks[j * (hd / 32) + b]);
            UNROLL for (int u = 0; u < NV; u++) acc[j][u] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(t[j][u]), sc, acc[j][u]);
        }
    }
    UNROLL for (int j = 0; j < NP; j++)
        UNROLL for (int u = 0; u < NV; u++) _mm512_storeu_ps(s + j * QL + 16 * u, _mm512_mul_ps(acc[j][u], _mm512_loadu_ps(qs + 16 * u)));
}

T512 INLINE void scores_q8_0_nv(const int16_t *kc, const float *ks, const int16_t *qt, const float *qs, float *s, int64_t cn,
                                const int64_t hd, row_prefetch *pf, const int NV) {
    int64_t p = 0;
    for (; p + 4 <= cn; p += 4) { score_tile_q8_0(kc + p * hd, ks + p * (hd / 32), qt, qs, s + p * QL, hd, 4, NV); prefetch_step(pf); }
    for (; p < cn; p++) { score_tile_q8_0(kc + p * hd, ks + p * (hd / 32), qt, qs, s + p * QL, hd, 1, NV); prefetch_step(pf); }
}

T512 void ck_attention_scores_q8_0_avx512(const int16_t *kc, const float *ks, const int16_t *qt, const float *qs, float *s,
                                          int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf) {
    const int64_t nv = (nl + 15) / 16;
    prefetch_spread(pf, cn / 4 + cn % 4);
    // The supported models' head dims as constants (SmolLM2 64, Gemma 3 256), as the fp32 tiles.
    if (hd == 64) {
        if (nv == 3) scores_q8_0_nv(kc, ks, qt, qs, s, cn, 64, pf, 3);
        else if (nv == 2) scores_q8_0_nv(kc, ks, qt, qs, s, cn, 64, pf, 2);
        else scores_q8_0_nv(kc, ks, qt, qs, s, cn, 64, pf, 1);
    } else if (nv == 3) scores_q8_0_nv(kc, ks, qt, qs, s, cn, hd, pf, 3);
    else if (nv == 2) scores_q8_0_nv(kc, ks, qt, qs, s, cn, hd, pf, 2);
    else scores_q8_0_nv(kc, ks, qt, qs, s, cn, hd, pf, 1);
}

/// O[lanes i .. i+NQ)[dims c .. c+16 NC) += sum_p W[p][lane] * Vc[p][dims], p ascending.
T512 INLINE void value_tile(const float *vc, const float *w, float *o, int64_t n, int64_t hd, int64_t i, int64_t c,
                            const int NQ, const int NC) {
    __m512 acc[6][4];
    UNROLL for (int a = 0; a < NQ; a++) UNROLL for (int u = 0; u < NC; u++) acc[a][u] = _mm512_loadu_ps(o + (i + a) * hd + c + 16 * u);
    for (int64_t p = 0; p < n; p++) {
        __m512 vv[4];
        UNROLL for (int u = 0; u < NC; u++) vv[u] = _mm512_loadu_ps(vc + p * hd + c + 16 * u);
        UNROLL for (int a = 0; a < NQ; a++) {
            const __m512 wb = _mm512_set1_ps(w[p * QL + i + a]);
            UNROLL for (int u = 0; u < NC; u++) acc[a][u] = _mm512_fmadd_ps(wb, vv[u], acc[a][u]);
        }
    }
    UNROLL for (int a = 0; a < NQ; a++) UNROLL for (int u = 0; u < NC; u++) _mm512_storeu_ps(o + (i + a) * hd + c + 16 * u, acc[a][u]);
}

/// Lanes six at a time, then two at a time (nl is a multiple of 8), each over the dims in
/// chunks of 64 and then 16.
T512 void ck_attention_values_avx512(const float *vc, const float *w, float *o, int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf) {
    const int64_t chunks = hd / 64 + hd % 64 / 16;
    prefetch_spread(pf, (nl / 6 + nl % 6 / 2) * chunks);
    int64_t i = 0;
    for (; i + 6 <= nl; i += 6) {
        int64_t c = 0;
        for (; c + 64 <= hd; c += 64) { value_tile(vc, w, o, cn, hd, i, c, 6, 4); prefetch_step(pf); }
        for (; c < hd; c += 16) { value_tile(vc, w, o, cn, hd, i, c, 6, 1); prefetch_step(pf); }
    }
    for (; i < nl; i += 2) {
        int64_t c = 0;
        for (; c + 64 <= hd; c += 64) { value_tile(vc, w, o, cn, hd, i, c, 2, 4); prefetch_step(pf); }
        for (; c < hd; c += 16) { value_tile(vc, w, o, cn, hd, i, c, 2, 1); prefetch_step(pf); }
    }
}
