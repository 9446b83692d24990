// Attention for many query rows (prefill), AVX2/FMA: blocked so each cached K/V row is decoded
// to fp32 once per block of queries (8 elements per instruction in every cache format) and
// every multiply is a full-width vector FMA.
//
// Unit of work: one KV head g, up to QL = 48 query vectors = R consecutive query rows x the HG
// query heads of g's group (lane i = row r0 + i / HG, head hg0 + i % HG). Per unit:
//   Qt[d][QL]        the queries transposed (queries in lanes), built once;
//   O[QL][hd]        the weighted value sums so far;
// then per chunk of CP positions, chunks ending at absolute multiples of CP so that a query's
// chunks do not depend on the rows beside it (flash attention's online softmax, all in L1/L2):
//   K rows decoded to fp32 (Kc[CP][hd]), S[p][QL] = sum_d Kc[p][d] * Qt[d] as one FMA per
//   (p, d, 8 lanes), d in order (the reference's dot order);
//   per lane: running max m and sum l; when the chunk raises m, l and O are scaled by
//   e^(m_old - m_new); W = e^(S - m) (masked lanes exactly 0), l += sum W;
//   V rows decoded the same way, O[lane] += sum_p W[p][lane] * V[p];
// and out = O / l. So the K/V decode cost is shared by QL queries and no buffer grows with the
// depth. Between the tiles of each phase the rows of the next one are prefetched (row_prefetch).
// Units are handed out dynamically (atomic counter), latest rows (most positions) first.
// The two FMA phases (scores, weighted values) run at the path's width (attention_tiles.h):
// 16 lanes on the AVX-512 paths (attention_tiles_avx512.c; pp512 @ d4096 on an AVX-512 EPYC,
// Zen 5, 2 threads, 3 interleaved rounds, median t/s: SmolLM2 429 -> 595, Gemma 3 1096 -> 1483),
// 8 here otherwise; decoding rows stay on 8 lanes. The online softmax between the phases runs at
// the path's width too (its e^x was ~half the unit's own samples at SmolLM2's head dim of 64;
// 16 lanes, the same bits: pp512 @ d4096, fp16 cache, Zen 5, 2 threads, the builds alternating
// over 4 rounds, median t/s: SmolLM2 727 -> 822, Gemma 3 1726 -> 1905).
// Over a q8_0 cache the AVX-512 paths run both phases in integers (attention_tiles.h), as the
// split-K decode does: the unit's query lanes rounded once to int16, the chunk's K codes only
// sign-extended, one vpdpwssd per two dims where fp32 needs two FMAs and one FMA by the block
// scale per 32 dims; the V codes paired by position and the weights times their block scales
// rounded to int16 per chunk, one vpdpwssd per two positions. pp512 @ d4096 with a q8_0 cache
// (Zen 5 EPYC, 2 threads, the builds alternating over 4 rounds, median t/s): SmolLM2 676 -> 801,
// Gemma 3 1924 -> 2287; over the fp16 cache in the same runs ~1.0x -> 1.16x and 1.17x.
#pragma STDC FP_CONTRACT OFF
#include <math.h>
#include <string.h>
#include "ck_ops.h"
#include "ck_matmul.h"
#include "attention_tiled.h"
#include "attention_tiles.h"
#include "attention_q8_0_scalar.h"
#include "attention_avx2.h"

int64_t ck_attention_tiled_scratch_floats(int64_t head_dim) {
    return (int64_t)QL * head_dim * 2 + (int64_t)CP * head_dim + (int64_t)CP * QL;   // Qt, O, Kc/Vc, S
}

/// The cursor over rows [p0, p0 + n) of `base` (n <= 0: none); the phase that advances it
/// spreads its lines over its tiles (prefetch_spread).
INLINE row_prefetch prefetch_plan(const ck_attention_desc *d, const uint8_t *base, int64_t p0, int64_t n) {
    const int64_t lines = (ck_kv_row_bytes(d->format, d->head_dim) + 63) / 64, rows = n > 0 ? n : 0;
    return (row_prefetch){base, p0, p0 + rows, 0, lines, d->row_bytes, 0};
}

#if defined(__x86_64__)   // the AVX2 / F16C tiles and the q8_0 integer phases
/// Decodes rows p0..p0+n-1 of one KV head (base already offset to the head) into dst[n][hd]
/// with AVX2/F16C (the SIMD paths' attention_rows; ref's, attention_ref.c, decodes the same values).
T256 void ck_attention_rows_avx2(const ck_attention_desc *d, const uint8_t *base, int64_t p0, int64_t n, float *dst) {
    const int64_t hd = d->head_dim;
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *row = base + (p0 + i) * d->row_bytes;
        float *o = dst + i * hd;
        if (d->format == CK_KV_F16) {
            for (int64_t j = 0; j < hd; j += 8)
                _mm256_storeu_ps(o + j, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(row + 2 * j))));
        } else {
            // (codes * unit) * scale: ck_kv_load_row's products, so the same fp32 values.
            const ck_kv_format f = d->format;
            const __m256 unit = _mm256_set1_ps(kv_unit(f));
            for (int64_t b = 0; b < hd / 32; b++) {
                const uint8_t *blk = row + b * kv_block_bytes(f);
                const __m256 sc = _mm256_set1_ps(kv_block_scale(f, blk));
                for (int c = 0; c < 4; c++)
                    _mm256_storeu_ps(o + 32 * b + 8 * c, _mm256_mul_ps(_mm256_mul_ps(kv_codes8(f, blk, 8 * c), unit), sc));
            }
        }
    }
}

/// q8s_decode_codes (attention_q8_0_scalar.h) in AVX2, the same int16 codes and fp32 scales: the
/// SIMD paths' decoders (the portable loops took a q8_0 prefill at depth 0 to ~1.3x the time).
T256 static void decode_codes_q8_0(const ck_attention_desc *d, const uint8_t *base, int64_t p0, int64_t n, int16_t *kc, float *ks) {
    const int64_t hd = d->head_dim, nb = hd / 32;
    for (int64_t i = 0; i < n; i++) {
        const ck_block_q8_0 *row = (const ck_block_q8_0 *)(base + (p0 + i) * d->row_bytes);
        for (int64_t b = 0; b < nb; b++) {
            const __m256i c = _mm256_loadu_si256((const __m256i *)row[b].qs);
            _mm256_storeu_si256((__m256i *)(kc + i * hd + 32 * b), _mm256_cvtepi8_epi16(_mm256_castsi256_si128(c)));
            _mm256_storeu_si256((__m256i *)(kc + i * hd + 32 * b + 16), _mm256_cvtepi8_epi16(_mm256_extracti128_si256(c, 1)));
            ks[i * nb + b] = _cvtsh_ss(row[b].d);
        }
    }
}

/// q8s_decode_pairs in AVX2, the same pairs and scales.
T256 static void decode_pairs_q8_0(const ck_attention_desc *d, const uint8_t *base, int64_t p0, int64_t n, int32_t *vp, float *vs) {
    const int64_t hd = d->head_dim, nb = hd / 32;
    const __m256i low = _mm256_set1_epi32(0xFFFF);
    for (int64_t pp = 0; pp < (n + 1) / 2; pp++) {
        const ck_block_q8_0 *r0 = (const ck_block_q8_0 *)(base + (p0 + 2 * pp) * d->row_bytes);
        const ck_block_q8_0 *r1 = 2 * pp + 1 < n ? (const ck_block_q8_0 *)(base + (p0 + 2 * pp + 1) * d->row_bytes) : NULL;
        for (int64_t b = 0; b < nb; b++) {
            for (int e = 0; e < 32; e += 8) {
                const __m256i x0 = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(r0[b].qs + e)));
                const __m256i x1 = r1 ? _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(r1[b].qs + e))) : _mm256_setzero_si256();
                _mm256_storeu_si256((__m256i *)(vp + pp * hd + 32 * b + e), _mm256_or_si256(_mm256_and_si256(x0, low), _mm256_slli_epi32(x1, 16)));
            }
            vs[2 * pp * nb + b] = _cvtsh_ss(r0[b].d);
            if (r1) vs[(2 * pp + 1) * nb + b] = _cvtsh_ss(r1[b].d);
        }
    }
}

/// S[p][lanes 8v..8v+8*NV) = sum_d Kc[p][d] * Qt[d] for NP positions; d ascending.
T256 INLINE void score_tile(const float *kc, const float *qt, float *s, int64_t hd, int v, const int NP, const int NV) {
    __m256 acc[6][2];
    for (int j = 0; j < NP; j++)
        for (int u = 0; u < NV; u++) acc[j][u] = _mm256_setzero_ps();
    for (int64_t dd = 0; dd < hd; dd++) {
        __m256 q[2];
        for (int u = 0; u < NV; u++) q[u] = _mm256_loadu_ps(qt + dd * QL + 8 * (v + u));
        for (int j = 0; j < NP; j++) {
            const __m256 kb = _mm256_broadcast_ss(kc + j * hd + dd);
            for (int u = 0; u < NV; u++) acc[j][u] = _mm256_fmadd_ps(kb, q[u], acc[j][u]);
        }
    }
    for (int j = 0; j < NP; j++)
        for (int u = 0; u < NV; u++) _mm256_storeu_ps(s + j * QL + 8 * (v + u), acc[j][u]);
}

/// O[lanes i..i+NQ)[dims c..c+8*NC) += sum_p W[p][lane] * Vc[p][dims] over n positions.
T256 INLINE void value_tile(const float *vc, const float *w, float *o, int64_t n, int64_t hd, int i, int64_t c,
                            const int NQ, const int NC) {
    __m256 acc[6][2];
    for (int a = 0; a < NQ; a++)
        for (int u = 0; u < NC; u++) acc[a][u] = _mm256_loadu_ps(o + (i + a) * hd + c + 8 * u);
    for (int64_t p = 0; p < n; p++) {
        __m256 vv[2];
        for (int u = 0; u < NC; u++) vv[u] = _mm256_loadu_ps(vc + p * hd + c + 8 * u);
        for (int a = 0; a < NQ; a++) {
            const __m256 wb = _mm256_broadcast_ss(w + p * QL + i + a);
            for (int u = 0; u < NC; u++) acc[a][u] = _mm256_fmadd_ps(wb, vv[u], acc[a][u]);
        }
    }
    for (int a = 0; a < NQ; a++)
        for (int u = 0; u < NC; u++) _mm256_storeu_ps(o + (i + a) * hd + c + 8 * u, acc[a][u]);
}

/// The scores phase on 8-lane vectors (attention_scores_fn): six positions x two vectors per tile.
T256 INLINE void scores8(const float *kc, const float *qt, float *s, int64_t cn, const int64_t hd, int64_t nl, row_prefetch *pf) {
    const int nv = (int)(nl / 8);
    prefetch_spread(pf, (cn / 6 + cn % 6) * ((nv + 1) / 2));
    int64_t p = 0;
    for (; p + 6 <= cn; p += 6) {
        int v = 0;
        for (; v + 2 <= nv; v += 2) { score_tile(kc + p * hd, qt, s + p * QL, hd, v, 6, 2); prefetch_step(pf); }
        if (v < nv) { score_tile(kc + p * hd, qt, s + p * QL, hd, v, 6, 1); prefetch_step(pf); }
    }
    for (; p < cn; p++) {
        int v = 0;
        for (; v + 2 <= nv; v += 2) { score_tile(kc + p * hd, qt, s + p * QL, hd, v, 1, 2); prefetch_step(pf); }
        if (v < nv) { score_tile(kc + p * hd, qt, s + p * QL, hd, v, 1, 1); prefetch_step(pf); }
    }
}

/// The weighted-values phase on 8-lane vectors (attention_values_fn): six lanes per tile (12
/// accumulators: 8 loads per 12 FMAs), the rest (nl is a multiple of 8) two at a time.
T256 INLINE void values8(const float *vc, const float *w, float *o, int64_t cn, const int64_t hd, int64_t nl, row_prefetch *pf) {
    prefetch_spread(pf, (nl / 6 + nl % 6 / 2) * ((hd + 15) / 16));
    int i = 0;
    for (; i + 6 <= nl; i += 6) {
        int64_t c = 0;
        for (; c + 16 <= hd; c += 16) { value_tile(vc, w, o, cn, hd, i, c, 6, 2); prefetch_step(pf); }
        if (c < hd) { value_tile(vc, w, o, cn, hd, i, c, 6, 1); prefetch_step(pf); }
    }
    for (; i < nl; i += 2) {
        int64_t c = 0;
        for (; c + 16 <= hd; c += 16) { value_tile(vc, w, o, cn, hd, i, c, 2, 2); prefetch_step(pf); }
        if (c < hd) { value_tile(vc, w, o, cn, hd, i, c, 2, 1); prefetch_step(pf); }
    }
}

/// The phases with the supported models' head dims (SmolLM2 64, Gemma 3 256) as constants, so
/// the tiles' loops and row offsets are fixed (worth 2-10 % of pp512 @ d4096's attention when the
/// AVX2 unit was measured with and without, outputs unchanged). The AVX2 kernel table names them.
T256 void ck_attention_scores_avx2(const float *kc, const float *qt, float *s, int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf) {
    if (hd == 64) scores8(kc, qt, s, cn, 64, nl, pf);
    else if (hd == 256) scores8(kc, qt, s, cn, 256, nl, pf);
    else scores8(kc, qt, s, cn, hd, nl, pf);
}
T256 void ck_attention_values_avx2(const float *vc, const float *w, float *o, int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf) {
    if (hd == 64) values8(vc, w, o, cn, 64, nl, pf);
    else if (hd == 256) values8(vc, w, o, cn, 256, nl, pf);
    else values8(vc, w, o, cn, hd, nl, pf);
}

/// All-ones in the lanes that do not see position p (p < first or p > last).
T256 INLINE __m256 hidden(__m256i first, __m256i last, int64_t p) {
    const __m256i pv = _mm256_set1_epi32((int32_t)p);
    return _mm256_castsi256_ps(_mm256_or_si256(_mm256_cmpgt_epi32(first, pv), _mm256_cmpgt_epi32(pv, last)));
}

/// The chunk's online softmax on 8-lane vectors (attention_softmax_fn): weights e^(s - running
/// max), masked ones exactly 0; when a lane's maximum grows, its sum and output so far are scaled
/// by e^(old - new) first. A lane that has seen no position yet keeps max -inf and sum and output 0.
T256 void ck_attention_softmax_avx2(float *s, float *o, int64_t cn, int64_t hd, int64_t nl, int64_t p0, int masked,
                                     const int32_t *first, const int32_t *last, float *run_max, float *run_sum) {
    float alpha[8];
    for (int64_t v = 0; v < nl / 8; v++) {
        const __m256i fv = _mm256_loadu_si256((const __m256i *)(first + 8 * v));
        const __m256i lv = _mm256_loadu_si256((const __m256i *)(last + 8 * v));
        const __m256 ninf = _mm256_set1_ps(-INFINITY);
        __m256 mx = ninf;
        for (int64_t p = 0; p < cn; p++) {
            __m256 sp = _mm256_loadu_ps(s + p * QL + 8 * v);
            if (masked) sp = _mm256_blendv_ps(sp, ninf, hidden(fv, lv, p0 + p));
            mx = _mm256_max_ps(mx, sp);
        }
        const __m256 old_max = _mm256_loadu_ps(run_max + 8 * v), new_max = _mm256_max_ps(old_max, mx);
        __m256 sum = _mm256_loadu_ps(run_sum + 8 * v);
        if (_mm256_movemask_ps(_mm256_cmp_ps(new_max, old_max, _CMP_GT_OQ))) {
            // 1 where a finite max is unchanged; lanes still at -inf have sum and output 0 to scale.
            const __m256 a = ck_exp_avx2(_mm256_sub_ps(old_max, new_max));
            _mm256_storeu_ps(alpha, a);
            sum = _mm256_mul_ps(sum, a);
            for (int64_t i = 0; i < 8; i++) {
                const __m256 ai = _mm256_set1_ps(alpha[i]);
                float *oi = o + (8 * v + i) * hd;
                for (int64_t dd = 0; dd < hd; dd += 8) _mm256_storeu_ps(oi + dd, _mm256_mul_ps(_mm256_loadu_ps(oi + dd), ai));
            }
            _mm256_storeu_ps(run_max + 8 * v, new_max);
        }
        for (int64_t p = 0; p < cn; p++) {
            __m256 w = ck_exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(s + p * QL + 8 * v), new_max));
            if (masked) w = _mm256_andnot_ps(hidden(fv, lv, p0 + p), w);
            _mm256_storeu_ps(s + p * QL + 8 * v, w);
            sum = _mm256_add_ps(sum, w);
        }
        _mm256_storeu_ps(run_sum + 8 * v, sum);
    }
}

/// The integer phases over a q8_0 cache: attention_q8_0_scalar.h's bodies (ref's order)
/// compiled for this target, the head dims of the supported models as constants.
T256 void ck_attention_scores_q8_0_avx2(const int16_t *kc, const float *ks, const int16_t *qt, const float *qs, float *s,
                                        int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf) {
    prefetch_spread(pf, 1);
    prefetch_step(pf);
    if (hd == 64) q8s_scores(kc, ks, qt, qs, s, cn, 64, nl);
    else if (hd == 256) q8s_scores(kc, ks, qt, qs, s, cn, 256, nl);
    else q8s_scores(kc, ks, qt, qs, s, cn, hd, nl);
}
T256 void ck_attention_values_q8_0_avx2(const int32_t *vp, const float *vs, const float *w, int32_t *wp, float *ws, float *o,
                                        int64_t n, int64_t hd, int64_t nl, const float *bound, row_prefetch *pf) {
    prefetch_spread(pf, 1);
    prefetch_step(pf);
    if (hd == 64) q8s_values(vp, vs, w, wp, ws, o, n, 64, nl, bound);
    else if (hd == 256) q8s_values(vp, vs, w, wp, ws, o, n, 256, nl, bound);
    else q8s_values(vp, vs, w, wp, ws, o, n, hd, nl, bound);
}

#endif

#if !defined(__x86_64__)
/// No SIMD instantiation of unit() exists here: the portable decoders under the SIMD names.
static void decode_codes_q8_0(const ck_attention_desc *d, const uint8_t *base, int64_t p0, int64_t n, int16_t *kc, float *ks) {
    q8s_decode_codes(base, d->row_bytes, d->head_dim, p0, n, kc, ks);
}
static void decode_pairs_q8_0(const ck_attention_desc *d, const uint8_t *base, int64_t p0, int64_t n, int32_t *vp, float *vs) {
    q8s_decode_pairs(base, d->row_bytes, d->head_dim, p0, n, vp, vs);
}
#endif

/// A path's phases.
typedef struct {
    attention_scores_fn scores;
    attention_values_fn values;
    attention_scores_q8_0_fn scores_q8_0;
    attention_values_q8_0_fn values_q8_0;
    attention_softmax_fn softmax;
    void (*rows)(const ck_attention_desc *, const uint8_t *, int64_t, int64_t, float *);
} tile_phases;

/// Query lane i of the integer phases: q rounded to int16 (into tmp) and stored in dim pairs,
/// its scale in qs[i].
INLINE void query_lane_q8_0(const float *q, int64_t hd, int16_t *tmp, int16_t *qt16, float *qs, int64_t i) {
    q8s_quantize_query(q, hd, tmp, qs + i);
    for (int64_t dd = 0; dd < hd; dd++) qt16[dd / 2 * 2 * QL + 2 * i + dd % 2] = tmp[dd];
}

/// Rows of the chunk from position p0 (the unit's positions end at pmax): chunks end at absolute
/// multiples of CP, so every lane sees its positions cut into the same chunks whichever rows share
/// its unit (its row's result depends on that row alone, in a prefill chunk of any size).
INLINE int64_t chunk_rows(int64_t p0, int64_t pmax) {
    const int64_t end = (p0 / CP + 1) * CP;
    return (end <= pmax ? end : pmax + 1) - p0;
}

/// One unit: KV head g, query heads hg0..hg0+hg-1 of its group, query rows r0..r0+nr-1. HD: the
/// head dim as a constant (0: read it from d), so the tiles' loops and row offsets are fixed; simd:
/// the q8_0 rows decoded with AVX2 (the SIMD paths' instantiations) or portably (ref's).
/// Plain C around the path's phases and row decoder, so that ref runs it on any x86-64.
INLINE void unit(const ck_attention_desc *d, int64_t g, int64_t hg0, int64_t hg, int64_t r0, int64_t nr, float *scratch,
                      const tile_phases *ph, const int64_t HD, const int simd) {
    const int64_t hd = HD ? HD : d->head_dim, group = d->heads / d->kv_heads;
    const int64_t nq = hg * nr, nv = (nq + 7) / 8;   // real lanes, 8-lane vectors in use
    float *qt = scratch, *o = qt + QL * hd, *kv = o + QL * hd, *s = kv + CP * hd;
    // Integer phases over a q8_0 cache. In Qt's space: the queries rounded to int16 in dim pairs
    // (qt16) and, in its second half, the chunk's paired weights (wp: (hd/32) * (CP+1)/2 * QL
    // int32, at most QL * hd int16 while CP <= 32); their scales qs. In Kc's: the chunk's K codes
    // (kc16) and block scales (ks), then its paired V codes (vp), block scales (vs) and the
    // weights' bounds (ws).
    const int int_phases = d->format == CK_KV_Q8_0;
    _Static_assert(CP <= 32, "the paired weights fill Qt's second half");
    int16_t *qt16 = (int16_t *)qt, *kc16 = (int16_t *)kv;
    int32_t *wp = (int32_t *)(qt16 + QL * hd), *vp = (int32_t *)kv;
    float *ks = (float *)(kc16 + CP * hd), qs[QL];
    float *vs = (float *)(vp + (CP + 1) / 2 * hd), *ws = vs + CP * (hd / 32);
    int32_t first[QL], last[QL];
    int64_t pmin = INT64_MAX, pmax = -1;
    // Lanes up to a multiple of 16 (the 16-lane tiles compute them too; nl below is what counts).
    for (int64_t i = 0; i < (nv * 8 + 15) / 16 * 16; i++) {
        const int64_t li = i < nq ? i : nq - 1;   // padding lanes repeat the last real query
        const int64_t r = r0 + li / hg, h = g * group + hg0 + li % hg;
        const int64_t l = d->positions[r];
        const int64_t f = d->window > 0 && l - d->window + 1 > 0 ? l - d->window + 1 : 0;
        first[i] = (int32_t)f;
        last[i] = (int32_t)l;
        if (f < pmin) pmin = f;
        if (l > pmax) pmax = l;
        const float *q = d->q + r * d->q_stride + h * hd;
        if (int_phases) query_lane_q8_0(q, hd, kc16, qt16, qs, i);   // kc16 is free until the first chunk
        else {
            for (int64_t dd = 0; dd < hd; dd++) qt[dd * QL + i] = q[dd];
        }
    }
    const uint8_t *kbase = d->k + ck_kv_row_bytes(d->format, g * hd), *vbase = d->v + ck_kv_row_bytes(d->format, g * hd);
    const int64_t nl = nv * 8, lanes16 = (nv * 8 + 15) / 16 * 16;
    // Positions [all_from, all_to] are visible to every lane (at depth, nearly all of them):
    // chunks inside it skip the mask.
    int64_t all_from = pmin, all_to = pmax;
    for (int64_t i = 0; i < nl; i++) {
        all_from = first[i] > all_from ? first[i] : all_from;
        all_to = last[i] < all_to ? last[i] : all_to;
    }
    float run_max[QL], run_sum[QL];
    for (int64_t i = 0; i < nl; i++) { run_max[i] = -INFINITY; run_sum[i] = 0; }
    memset(o, 0, (size_t)(nl * hd) * sizeof *o);

    // Over q8_0, a masked chunk's V block bounds per lane (the largest scale among the positions
    // the lane sees), so that no lane's rounding depends on positions only other lanes see.
    float lane_bound[int_phases ? (hd / 32) * QL : 1];
    row_prefetch pf = prefetch_plan(d, kbase, pmin, chunk_rows(pmin, pmax));
    prefetch_spread(&pf, 1);
    prefetch_step(&pf);
    for (int64_t p0 = pmin, cn; p0 <= pmax; p0 += cn) {
        cn = chunk_rows(p0, pmax);
        const int masked = p0 < all_from || p0 + cn - 1 > all_to;

        // Scores of the chunk's positions.
        if (int_phases) {
            if (simd) decode_codes_q8_0(d, kbase, p0, cn, kc16, ks);
            else q8s_decode_codes(kbase, d->row_bytes, hd, p0, cn, kc16, ks);
            pf = prefetch_plan(d, vbase, p0, cn);
            ph->scores_q8_0(kc16, ks, qt16, qs, s, cn, hd, nl, &pf);
        } else {
            ph->rows(d, kbase, p0, cn, kv);
            pf = prefetch_plan(d, vbase, p0, cn);
            ph->scores(kv, qt, s, cn, hd, nl, &pf);
        }

        ph->softmax(s, o, cn, hd, nl, p0, masked, first, last, run_max, run_sum);

        // Weighted values.
        const int64_t next = p0 + cn <= pmax ? chunk_rows(p0 + cn, pmax) : 0;   // rows of the next chunk
        if (int_phases) {
            if (simd) decode_pairs_q8_0(d, vbase, p0, cn, vp, vs);
            else q8s_decode_pairs(vbase, d->row_bytes, hd, p0, cn, vp, vs);
            if (masked) q8s_lane_bounds(vs, cn, hd / 32, p0, first, last, lanes16, lane_bound);
            pf = prefetch_plan(d, kbase, p0 + cn, next);
            ph->values_q8_0(vp, vs, s, wp, ws, o, cn, hd, nl, masked ? lane_bound : NULL, &pf);
        } else {
            ph->rows(d, vbase, p0, cn, kv);
            pf = prefetch_plan(d, kbase, p0 + cn, next);
            ph->values(kv, s, o, cn, hd, nl, &pf);
        }
    }
    for (int64_t i = 0; i < nq; i++) {
        const int64_t r = r0 + i / hg, h = g * group + hg0 + i % hg;
        float *out = d->out + r * d->out_stride + h * hd;
        const float sc = 1.0f / run_sum[i];
        for (int64_t dd = 0; dd < hd; dd++) out[dd] = o[i * hd + dd] * sc;
    }
}

/// unit() with the supported models' head dims as constants (see ck_attention_scores_avx2), any other
/// multiple of 8 read from d.
#define UNIT_ARGS const ck_attention_desc *d, int64_t g, int64_t hg0, int64_t hg, int64_t r0, int64_t nr, float *s, const tile_phases *ph
#if defined(__x86_64__)
T256 static void unit_hd64(UNIT_ARGS) { unit(d, g, hg0, hg, r0, nr, s, ph, 64, 1); }
T256 static void unit_hd256(UNIT_ARGS) { unit(d, g, hg0, hg, r0, nr, s, ph, 256, 1); }
T256 static void unit_any(UNIT_ARGS) { unit(d, g, hg0, hg, r0, nr, s, ph, 0, 1); }
#endif
/// ref's: no target attributes.
static void unit_portable(UNIT_ARGS) { unit(d, g, hg0, hg, r0, nr, s, ph, 0, 0); }

typedef struct {
    const ck_attention_desc *d;
    int64_t hg, rows_per_unit, row_blocks, subgroups, units;
    void (*unit)(UNIT_ARGS);
    tile_phases phases;
} tiled_job;

/// Unit u: row blocks from the last (most positions) down, then KV head, then head subgroup.
static void run_unit(void *ctx, int64_t u, int t) {
    const tiled_job *j = ctx;
    const ck_attention_desc *d = j->d;
    const int64_t group = d->heads / d->kv_heads;
    const int64_t per_block = d->kv_heads * j->subgroups;
    const int64_t rb = j->row_blocks - 1 - u / per_block, g = (u % per_block) / j->subgroups, sg = u % j->subgroups;
    const int64_t r0 = rb * j->rows_per_unit, nr = d->rows - r0 < j->rows_per_unit ? d->rows - r0 : j->rows_per_unit;
    const int64_t hg0 = sg * j->hg, hg = group - hg0 < j->hg ? group - hg0 : j->hg;
    j->unit(d, g, hg0, hg, r0, nr, d->scratch + (int64_t)t * d->scratch_stride, &j->phases);
}

/// The blocked kernel with `unit` (0: the SIMD instantiations by head dim). A head dim that is not
/// a multiple of 8 runs the portable unit around ref's scalar phases (the same sums in the same
/// order as every path's tiles).
static void tiled(const ck_attention_desc *d, int nthreads, const ck_path_kernels *k, void (*unit)(UNIT_ARGS)) {
    if (d->head_dim % 8 != 0) {
        k = ck_kernels(CK_PATH_REF);
        unit = unit_portable;
    }
    const int64_t group = d->heads / d->kv_heads;
    tiled_job j;
    j.d = d;
    j.hg = group < QL ? group : QL;
    j.subgroups = (group + j.hg - 1) / j.hg;
    j.rows_per_unit = QL / j.hg;
    j.row_blocks = (d->rows + j.rows_per_unit - 1) / j.rows_per_unit;
    j.units = j.row_blocks * d->kv_heads * j.subgroups;
#if defined(__x86_64__)
    j.unit = unit ? unit : d->head_dim == 64 ? unit_hd64 : d->head_dim == 256 ? unit_hd256 : unit_any;
#else
    j.unit = unit;
#endif
    j.phases = (tile_phases){k->attention_scores, k->attention_values, k->attention_scores_q8_0, k->attention_values_q8_0,
                             k->attention_softmax, k->attention_rows};
    ck_parallel_units(run_unit, &j, j.units, nthreads);
}

#if defined(__x86_64__)
void ck_attention_tiled(const ck_attention_desc *d, int nthreads, const ck_path_kernels *k) { tiled(d, nthreads, k, 0); }
#endif
void ck_attention_tiled_portable(const ck_attention_desc *d, int nthreads, const ck_path_kernels *k) {
    tiled(d, nthreads, k, unit_portable);
}
