// The FMA-bound phases of the blocked prefill attention (attention_tiles.h) on 16-lane vectors:
// the same tiles as attention_tiled.c's AVX2 ones at twice the width, 32 registers. The query
// lanes of a unit (QL = 48) are three vectors, so a score tile covers six positions x every lane
// (18 accumulators; per d three loads and six broadcasts feed 18 FMAs) and a value tile six
// lanes x 64 dims (24 accumulators; per position four loads and six broadcasts feed 24 FMAs).
// The q8_0 integer phases: a score tile (score_tile_q8_0) takes four positions (12 int32 sums and
// 12 fp32 accumulators), a value tile (value_tile_q8_0) six lanes x 64 dims over position pairs
// (24 int32 sums, scaled into O once per chunk). Their vpdpwssd go through ck_dpwssd.
// attention_tiles_avx512_emu.c compiles this file again against SIMDe for CPUs without AVX-512.
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: AVX2 / AVX-512 / AMX intrinsics
#include <math.h>
#include "attention_tiles.h"
#include "attention_q8_0_scalar.h"

#include "avx512_target.h"
#include "avx512_exp.h"

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
    if (hd % 16 != 0) { ck_attention_scores_avx2(kc, qt, s, cn, hd, nl, pf); return; }
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
                UNROLL for (int u = 0; u < NV; u++) t[j][u] = ck_dpwssd(t[j][u], kb, q[u]);
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

/// scores_q8_0_nv with the vector count as a constant.
T512 INLINE void scores_q8_0_hd(const int16_t *kc, const float *ks, const int16_t *qt, const float *qs, float *s, int64_t cn,
                                const int64_t hd, int64_t nv, row_prefetch *pf) {
    if (nv == 3) scores_q8_0_nv(kc, ks, qt, qs, s, cn, hd, pf, 3);
    else if (nv == 2) scores_q8_0_nv(kc, ks, qt, qs, s, cn, hd, pf, 2);
    else scores_q8_0_nv(kc, ks, qt, qs, s, cn, hd, pf, 1);
}

T512 void ck_attention_scores_q8_0_avx512(const int16_t *kc, const float *ks, const int16_t *qt, const float *qs, float *s,
                                          int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf) {
    const int64_t nv = (nl + 15) / 16;
    prefetch_spread(pf, cn / 4 + cn % 4);
    // SmolLM2's head dim as a constant, as the fp32 tiles have it.
    if (hd == 64) scores_q8_0_hd(kc, ks, qt, qs, s, cn, 64, nv, pf);
    else scores_q8_0_hd(kc, ks, qt, qs, s, cn, hd, nv, pf);
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
    if (hd % 16 != 0) { ck_attention_values_avx2(vc, w, o, cn, hd, nl, pf); return; }
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

/// O[lanes i .. i+NQ)[dims c .. c+16 NC) += ws * sum_pp wp[pp][lane] . vp[pp][dims]
/// (attention_values_q8_0_fn): one vpdpwssd per (pair of positions, lane, 16 dims) into exact
/// int32 sums, scaled into O once per chunk. NC = 4 covers blocks c/32 and c/32 + 1 (c a multiple
/// of 64), NC = 1 block c/32.
T512 INLINE void value_tile_q8_0(const int32_t *vp, const int32_t *wp, const float *ws, float *o, int64_t np, int64_t hd,
                                 int64_t i, int64_t c, const int NQ, const int NC) {
    const int64_t b0 = c / 32;
    const int32_t *w0 = wp + b0 * np * QL + i, *w1 = wp + (b0 + 1) * np * QL + i;   // w1: NC = 4 only
    __m512i acc[6][4];
    UNROLL for (int a = 0; a < NQ; a++) UNROLL for (int u = 0; u < NC; u++) acc[a][u] = _mm512_setzero_si512();
    for (int64_t pp = 0; pp < np; pp++) {
        __m512i vv[4];
        UNROLL for (int u = 0; u < NC; u++) vv[u] = _mm512_loadu_si512(vp + pp * hd + c + 16 * u);
        UNROLL for (int a = 0; a < NQ; a++) {
            const __m512i wa = _mm512_set1_epi32(w0[pp * QL + a]);
            const __m512i wb = NC > 2 ? _mm512_set1_epi32(w1[pp * QL + a]) : wa;
            UNROLL for (int u = 0; u < NC; u++) acc[a][u] = ck_dpwssd(acc[a][u], u < 2 ? wa : wb, vv[u]);
        }
    }
    UNROLL for (int a = 0; a < NQ; a++)
        UNROLL for (int u = 0; u < NC; u++) {
            float *out = o + (i + a) * hd + c + 16 * u;
            const __m512 sc = _mm512_set1_ps(ws[(b0 + u / 2) * QL + i + a]);
            _mm512_storeu_ps(out, _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[a][u]), sc, _mm512_loadu_ps(out)));
        }
}

/// Lanes six at a time, then two at a time (nl is a multiple of 8), each over the dims in
/// chunks of 64 and then 16, as the fp32 values.
T512 INLINE void values_q8_0_hd(const int32_t *vp, const int32_t *wp, const float *ws, float *o, int64_t np, const int64_t hd,
                                int64_t nl, row_prefetch *pf) {
    int64_t i = 0;
    for (; i + 6 <= nl; i += 6) {
        int64_t c = 0;
        for (; c + 64 <= hd; c += 64) { value_tile_q8_0(vp, wp, ws, o, np, hd, i, c, 6, 4); prefetch_step(pf); }
        for (; c < hd; c += 16) { value_tile_q8_0(vp, wp, ws, o, np, hd, i, c, 6, 1); prefetch_step(pf); }
    }
    for (; i < nl; i += 2) {
        int64_t c = 0;
        for (; c + 64 <= hd; c += 64) { value_tile_q8_0(vp, wp, ws, o, np, hd, i, c, 2, 4); prefetch_step(pf); }
        for (; c < hd; c += 16) { value_tile_q8_0(vp, wp, ws, o, np, hd, i, c, 2, 1); prefetch_step(pf); }
    }
}

/// The chunk's weights w[p][lane] (n positions) times each V block's scale vs[p][b], rounded to
/// int16 and paired by position, wp[b][pp][lane], against the bound wmax[lane] * vsmax[b] (the
/// lane's largest weight over the chunk times the block's largest scale), which ws[b][lane] =
/// bound / 32767 scales back. A product of two maxima as the bound keeps the rounding at two
/// multiplies per weight and block: (w * (1 / wmax)) * (vs[p][b] * 32767 / vsmax[b]). Both factors
/// are at most 1 + 2^-23 and 32767 (1 + 2^-23), so no product rounds past 32767; vcvtps2dq rounds
/// to nearest even. (A bound per lane and block, with its own pass over the products, took as
/// long as the integer values saved.) A masked chunk brings its block bounds per lane (bound,
/// q8s_lane_bounds): then the second factor is vs[p][b] * (32767 / bound[b][lane]), one more
/// multiply, as q8s_values has it.
/// PER_LANE: bound is given (a constant, so the chunks every lane sees whole keep their loop).
T512 INLINE void pair_weights(const float *w, const float *vs, int64_t n, int64_t nb, int64_t nl, const float *bound, int32_t *wp,
                              float *ws, const int PER_LANE) {
    const int64_t np = (n + 1) / 2, nv = (nl + 15) / 16;   // nv <= 3 (QL = 48 lanes)
    const __m512i low = _mm512_set1_epi32(0xFFFF);
    __m512 wmax[3], inv[3];
    for (int64_t v = 0; v < nv; v++) {
        __m512 mx = _mm512_setzero_ps();
        for (int64_t p = 0; p < n; p++) mx = _mm512_max_ps(_mm512_loadu_ps(w + p * QL + 16 * v), mx);   // weights >= 0
        wmax[v] = mx;
        inv[v] = _mm512_maskz_div_ps(_mm512_cmp_ps_mask(mx, _mm512_setzero_ps(), _CMP_GT_OQ), _mm512_set1_ps(1.0f), mx);
    }
    float fs[PER_LANE ? 1 : nb];   // 32767 / vsmax[b] (0 for an all-zero block)
    float lane_fs[PER_LANE ? nb * QL : 1];   // 32767 / bound[b][lane], lanes up to 16 nv
    for (int64_t b = 0; b < nb; b++) {
        if (PER_LANE) {
            float back[QL];
            for (int64_t l = 0; l < 16 * nv; l++) q8s_bound_factors(bound[b * QL + l], lane_fs + b * QL + l, back + l);
            for (int64_t v = 0; v < nv; v++)
                _mm512_storeu_ps(ws + b * QL + 16 * v, _mm512_mul_ps(wmax[v], _mm512_loadu_ps(back + 16 * v)));
            continue;
        }
        float m = 0, back;
        for (int64_t p = 0; p < n; p++) m = fabsf(vs[p * nb + b]) > m ? fabsf(vs[p * nb + b]) : m;
        q8s_bound_factors(m, fs + b, &back);
        for (int64_t v = 0; v < nv; v++) _mm512_storeu_ps(ws + b * QL + 16 * v, _mm512_mul_ps(wmax[v], _mm512_set1_ps(back)));
    }
    for (int64_t pp = 0; pp < np; pp++) {
        const int64_t p = 2 * pp, second = p + 1 < n;
        for (int64_t v = 0; v < nv; v++) {
            const __m512 w0 = _mm512_mul_ps(_mm512_loadu_ps(w + p * QL + 16 * v), inv[v]);
            const __m512 w1 = second ? _mm512_mul_ps(_mm512_loadu_ps(w + (p + 1) * QL + 16 * v), inv[v]) : _mm512_setzero_ps();
            for (int64_t b = 0; b < nb; b++) {
                const float v0 = vs[p * nb + b], v1 = second ? vs[(p + 1) * nb + b] : 0.0f;
                __m512 f0, f1;
                if (PER_LANE) {
                    const __m512 lf = _mm512_loadu_ps(lane_fs + b * QL + 16 * v);
                    f0 = _mm512_mul_ps(_mm512_set1_ps(v0), lf);
                    f1 = _mm512_mul_ps(_mm512_set1_ps(v1), lf);
                } else {
                    f0 = _mm512_set1_ps(v0 * fs[b]);
                    f1 = _mm512_set1_ps(v1 * fs[b]);
                }
                const __m512i x0 = _mm512_cvtps_epi32(_mm512_mul_ps(w0, f0));
                const __m512i x1 = _mm512_cvtps_epi32(_mm512_mul_ps(w1, f1));
                _mm512_storeu_si512(wp + (b * np + pp) * QL + 16 * v, _mm512_or_si512(_mm512_and_si512(x0, low), _mm512_slli_epi32(x1, 16)));
            }
        }
    }
}

T512 void ck_attention_values_q8_0_avx512(const int32_t *vp, const float *vs, const float *w, int32_t *wp, float *ws, float *o,
                                          int64_t n, int64_t hd, int64_t nl, const float *bound, row_prefetch *pf) {
    const int64_t np = (n + 1) / 2;
    if (bound) pair_weights(w, vs, n, hd / 32, nl, bound, wp, ws, 1);
    else pair_weights(w, vs, n, hd / 32, nl, NULL, wp, ws, 0);
    prefetch_spread(pf, (nl / 6 + nl % 6 / 2) * (hd / 64 + hd % 64 / 16));
    if (hd == 64) values_q8_0_hd(vp, wp, ws, o, np, 64, nl, pf);
    else if (hd == 256) values_q8_0_hd(vp, wp, ws, o, np, 256, nl, pf);
    else values_q8_0_hd(vp, wp, ws, o, np, hd, nl, pf);
}

/// The lanes that do not see position p (p < first or p > last): attention_tiled.c's hidden().
T512 INLINE __mmask16 hidden16(__m512i first, __m512i last, int64_t p) {
    const __m512i pv = _mm512_set1_epi32((int32_t)p);
    return _mm512_cmpgt_epi32_mask(first, pv) | _mm512_cmpgt_epi32_mask(pv, last);
}

/// ck_attention_softmax_avx2 (attention_tiled.c) on 16-lane vectors, lane for lane the same operations (exp16
/// is ck_exp_avx2's steps), so the same bits: a lane whose max did not grow but shares a vector
/// with one that did is scaled by e^0 = 1 exactly. Lanes from nl up (a last vector of 8) are
/// neither read from run_max / run_sum nor written.
T512 void ck_attention_softmax_avx512(float *s, float *o, int64_t cn, int64_t hd, int64_t nl, int64_t p0, int masked,
                                      const int32_t *first, const int32_t *last, float *run_max, float *run_sum) {
    if (hd % 16 != 0) { ck_attention_softmax_avx2(s, o, cn, hd, nl, p0, masked, first, last, run_max, run_sum); return; }
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    for (int64_t v = 0; v < (nl + 15) / 16; v++) {
        const __mmask16 live = nl - 16 * v >= 16 ? 0xFFFF : (__mmask16)((1u << (nl - 16 * v)) - 1);
        const __m512i fv = _mm512_loadu_si512(first + 16 * v), lv = _mm512_loadu_si512(last + 16 * v);
        __m512 mx = ninf;
        for (int64_t p = 0; p < cn; p++) {
            __m512 sp = _mm512_loadu_ps(s + p * QL + 16 * v);
            if (masked) sp = _mm512_mask_mov_ps(sp, hidden16(fv, lv, p0 + p), ninf);
            mx = _mm512_max_ps(mx, sp);
        }
        const __m512 old_max = _mm512_mask_mov_ps(ninf, live, _mm512_maskz_loadu_ps(live, run_max + 16 * v));
        const __m512 new_max = _mm512_max_ps(old_max, mx);
        __m512 sum = _mm512_maskz_loadu_ps(live, run_sum + 16 * v);
        if (_mm512_cmp_ps_mask(new_max, old_max, _CMP_GT_OQ) & live) {
            const __m512 a = exp16(_mm512_sub_ps(old_max, new_max));
            float alpha[16];
            _mm512_storeu_ps(alpha, a);
            sum = _mm512_mul_ps(sum, a);
            for (int64_t i = 16 * v; i < 16 * v + 16 && i < nl; i++) {
                const __m512 ai = _mm512_set1_ps(alpha[i - 16 * v]);
                float *oi = o + i * hd;
                for (int64_t dd = 0; dd < hd; dd += 16) _mm512_storeu_ps(oi + dd, _mm512_mul_ps(_mm512_loadu_ps(oi + dd), ai));
            }
            _mm512_mask_storeu_ps(run_max + 16 * v, live, new_max);
        }
        for (int64_t p = 0; p < cn; p++) {
            __m512 w = exp16(_mm512_sub_ps(_mm512_loadu_ps(s + p * QL + 16 * v), new_max));
            if (masked) w = _mm512_maskz_mov_ps(~hidden16(fv, lv, p0 + p), w);
            _mm512_storeu_ps(s + p * QL + 16 * v, w);
            sum = _mm512_add_ps(sum, w);
        }
        _mm512_mask_storeu_ps(run_sum + 16 * v, live, sum);
    }
}
#endif
