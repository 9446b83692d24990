// Private to the attention kernels: the q8_0 cache's integer scheme in plain C, the one order
// every path follows (docs/kernels.md, "One order for attention"). ref runs these bodies as
// they are (attention_ref.c); the AVX2 prefill compiles them again under its target
// (attention_tiled.c) and the SIMD kernels compute the same sums lane for lane
// (attention_split*.c, attention_tiles_avx512.c). Integer sums are exact in int32, so only the
// fp32 steps fix an order: those are spelled out here.
#ifndef CK_ATTENTION_Q8_0_SCALAR_H
#define CK_ATTENTION_Q8_0_SCALAR_H

#include <math.h>
#include <stdint.h>
#include "ck_blocks.h"
#include "ck_convert.h"
#include "attention_tiles.h"

#define Q8S_INLINE static inline __attribute__((always_inline))

/// x rounded to the nearest integer, ties to even (vcvtps2dq under the default rounding mode),
/// then saturated to int16 as vpackssdw / vpmovsdw do (NaN, which vcvtps2dq makes INT32_MIN,
/// to -32768). rintf, unlike lrintf, has no errno to set: under an AVX2 target it is one
/// vroundps and the loops around it vectorize.
Q8S_INLINE int16_t q8s_round16(float x) {
    const float r = rintf(x);
    return (int16_t)(r > 32767.0f ? 32767 : r >= -32768.0f ? (int)r : -32768);
}

/// q16[e] = round(q[e] / qs), qs = max_e |q[e]| / 32767 (q16 zero for a zero query): 15 bits of
/// the largest element; quantize_query's and quantize_query16's bits (max is exact in any order).
Q8S_INLINE void q8s_quantize_query(const float *q, int64_t hd, int16_t *q16, float *qs) {
    float amax = 0;
    for (int64_t e = 0; e < hd; e++) amax = fabsf(q[e]) > amax ? fabsf(q[e]) : amax;
    const float inv = amax > 0 ? 32767.0f / amax : 0.0f;
    for (int64_t e = 0; e < hd; e++) q16[e] = q8s_round16(q[e] * inv);
    *qs = amax / 32767.0f;
}

// ---- split-K decode ---------------------------------------------------------------------------

/// One score of the split-K unit: the int16 query q16 (scale qs) against one q8_0 K head segment.
/// Head dims of one or two blocks: each block's dot exact, acc = fma(dot, d_b, acc) over the
/// blocks, times qs. Longer heads: 16 lanes, lane j an FMA chain over the blocks of
/// (the exact pair sum of dims 32b + 2j, 32b + 2j + 1) times d_b; the lanes reduced as
/// ((S0 + S1) + (S2 + S3)), S_k = (x[4k] + x[4k+2]) + (x[4k+1] + x[4k+3]) (the AVX-512 unit's
/// shuffle tree), times qs.
Q8S_INLINE float q8s_split_score(const int16_t *q16, float qs, const uint8_t *seg, int64_t hd) {
    const ck_block_q8_0 *blk = (const ck_block_q8_0 *)seg;
    if (hd <= 64) {
        float acc = 0;
        for (int64_t b = 0; b < hd / 32; b++) {
            int32_t dot = 0;
            for (int e = 0; e < 32; e++) dot += (int32_t)q16[32 * b + e] * blk[b].qs[e];
            acc = fmaf((float)dot, ck_fp16_to_fp32(blk[b].d), acc);
        }
        return acc * qs;
    }
    float x[16] = {0};
    for (int64_t b = 0; b < hd / 32; b++) {
        const float d = ck_fp16_to_fp32(blk[b].d);
        for (int j = 0; j < 16; j++) {
            const int32_t t = (int32_t)q16[32 * b + 2 * j] * blk[b].qs[2 * j] + (int32_t)q16[32 * b + 2 * j + 1] * blk[b].qs[2 * j + 1];
            x[j] = fmaf((float)t, d, x[j]);
        }
    }
    float S[4];
    for (int k = 0; k < 4; k++) S[k] = (x[4 * k] + x[4 * k + 2]) + (x[4 * k + 1] + x[4 * k + 3]);
    return ((S[0] + S[1]) + (S[2] + S[3])) * qs;
}

/// V rows the split-K units weigh per block (VROWS_Q8, the AVX-512 unit's VROWS).
enum { Q8S_VROWS = 64 };

/// o[0 .. hd) += sum_{p in [b0, b1)} w[p] V_p for one head over q8_0 V rows (vg: the head's
/// segment in the range's first row), b1 - b0 <= Q8S_VROWS: per segment block b the weights times
/// the rows' scales rounded to int16 against W D_b (W = max(0, w[p]), D_b = max(0, d[p][b])),
///   U[p] = round16((w[p] d[p][b]) (32767 / (W D_b))),  o[e] = fma(sum_p U[p] c_p[e], W D_b / 32767, o[e]).
Q8S_INLINE void q8s_split_values(const float *w, const uint8_t *vg, int64_t row_bytes, int64_t b0, int64_t b1, float *o, int64_t hd) {
    float wmax = 0;
    for (int64_t p = b0; p < b1; p++) wmax = w[p] > wmax ? w[p] : wmax;
    for (int64_t b = 0; b < hd / 32; b++) {
        const ck_block_q8_0 *row[Q8S_VROWS];
        float dmax = 0;
        for (int64_t p = b0; p < b1; p++) {
            row[p - b0] = (const ck_block_q8_0 *)(vg + p * row_bytes) + b;
            const float d = ck_fp16_to_fp32(row[p - b0]->d);
            dmax = d > dmax ? d : dmax;
        }
        const float bound = wmax * dmax, f = bound > 0 ? 32767.0f / bound : 0.0f, back = bound / 32767.0f;
        int16_t U[Q8S_VROWS];
        for (int64_t p = b0; p < b1; p++) U[p - b0] = q8s_round16((w[p] * ck_fp16_to_fp32(row[p - b0]->d)) * f);
        for (int e = 0; e < 32; e++) {
            int32_t acc = 0;
            for (int64_t p = 0; p < b1 - b0; p++) acc += (int32_t)U[p] * row[p]->qs[e];
            o[32 * b + e] = fmaf((float)acc, back, o[32 * b + e]);
        }
    }
}

// ---- blocked prefill phases (attention_tiles.h's integer phases) ------------------------------

/// The K codes of q8_0 rows p0..p0+n-1 of one KV head sign-extended to int16 (kc[n][hd]) and
/// their block scales (ks[n][hd/32]).
Q8S_INLINE void q8s_decode_codes(const uint8_t *base, int64_t row_bytes, int64_t hd, int64_t p0, int64_t n, int16_t *kc, float *ks) {
    const int64_t nb = hd / 32;
    for (int64_t i = 0; i < n; i++) {
        const ck_block_q8_0 *row = (const ck_block_q8_0 *)(base + (p0 + i) * row_bytes);
        for (int64_t b = 0; b < nb; b++) {
            for (int e = 0; e < 32; e++) kc[i * hd + 32 * b + e] = row[b].qs[e];
            ks[i * nb + b] = ck_fp16_to_fp32(row[b].d);
        }
    }
}

/// The V codes of q8_0 rows p0..p0+n-1 in position pairs: vp[pp][e] holds row 2pp's code at dim e
/// in its low int16 and row 2pp + 1's (0 past the chunk) in its high one; vs[n][hd/32] the scales.
Q8S_INLINE void q8s_decode_pairs(const uint8_t *base, int64_t row_bytes, int64_t hd, int64_t p0, int64_t n, int32_t *vp, float *vs) {
    const int64_t nb = hd / 32;
    for (int64_t pp = 0; pp < (n + 1) / 2; pp++) {
        const ck_block_q8_0 *r0 = (const ck_block_q8_0 *)(base + (p0 + 2 * pp) * row_bytes);
        const ck_block_q8_0 *r1 = 2 * pp + 1 < n ? (const ck_block_q8_0 *)(base + (p0 + 2 * pp + 1) * row_bytes) : 0;
        for (int64_t b = 0; b < nb; b++) {
            for (int e = 0; e < 32; e++) {
                const uint32_t lo = (uint16_t)(int16_t)r0[b].qs[e], hi = r1 ? (uint16_t)(int16_t)r1[b].qs[e] : 0;
                vp[pp * hd + 32 * b + e] = (int32_t)(lo | hi << 16);
            }
            vs[2 * pp * nb + b] = ck_fp16_to_fp32(r0[b].d);
            if (r1) vs[(2 * pp + 1) * nb + b] = ck_fp16_to_fp32(r1[b].d);
        }
    }
}

/// attention_scores_q8_0_fn: per position and lane, each block's sum exact in int32, the blocks
/// into acc by one fma with the block scale in ascending order, times qs[lane] last.
Q8S_INLINE void q8s_scores(const int16_t *kc, const float *ks, const int16_t *qt, const float *qs, float *s, int64_t cn,
                           int64_t hd, int64_t nl) {
    const int64_t nb = hd / 32;
    for (int64_t p = 0; p < cn; p++) {
        float acc[QL];
        for (int64_t l = 0; l < nl; l++) acc[l] = 0;
        for (int64_t b = 0; b < nb; b++) {
            int32_t t[QL];
            for (int64_t l = 0; l < nl; l++) t[l] = 0;
            for (int e = 0; e < 16; e++) {
                const int32_t k0 = kc[p * hd + 32 * b + 2 * e], k1 = kc[p * hd + 32 * b + 2 * e + 1];
                const int16_t *qp = qt + (b * 16 + e) * 2 * QL;
                for (int64_t l = 0; l < nl; l++) t[l] += k0 * qp[2 * l] + k1 * qp[2 * l + 1];
            }
            const float sc = ks[p * nb + b];
            for (int64_t l = 0; l < nl; l++) acc[l] = fmaf((float)t[l], sc, acc[l]);
        }
        for (int64_t l = 0; l < nl; l++) s[p * QL + l] = acc[l] * qs[l];
    }
}

/// max(m, |x|), the running maximum of the lane bounds.
Q8S_INLINE float q8s_abs_max(float m, float x) { return fabsf(x) > m ? fabsf(x) : m; }

/// The V block bounds of a masked chunk per lane (attention_values_q8_0_fn's `bound`): for lanes
/// 0..lanes-1 and blocks 0..nb-1, the largest |vs[p][b]| among the chunk's positions p0 + p in
/// [first[lane], last[lane]] (0 when it sees none), into bound[b * QL + lane].
Q8S_INLINE void q8s_lane_bounds(const float *vs, int64_t n, int64_t nb, int64_t p0, const int32_t *first, const int32_t *last,
                                int64_t lanes, float *bound) {
    // A lane sees all of the chunk, a prefix (its own position ends it), a suffix (its window
    // starts inside it) or, with a window shorter than the chunk, a middle run. Per block the
    // prefix and suffix maxima answer the first three in one read each (max is exact, so any
    // grouping gives the same bound); only a middle run is scanned.
    float pre[CP], suf[CP];
    for (int64_t b = 0; b < nb; b++) {
        float m = 0;
        for (int64_t p = 0; p < n; p++) pre[p] = m = q8s_abs_max(m, vs[p * nb + b]);
        m = 0;
        for (int64_t p = n - 1; p >= 0; p--) suf[p] = m = q8s_abs_max(m, vs[p * nb + b]);
        for (int64_t l = 0; l < lanes; l++) {
            const int64_t lo = first[l] > p0 ? first[l] - p0 : 0, hi = last[l] - p0 < n - 1 ? last[l] - p0 : n - 1;
            if (hi < lo) m = 0;
            else if (lo == 0) m = pre[hi];
            else if (hi == n - 1) m = suf[lo];
            else {
                m = 0;
                for (int64_t p = lo; p <= hi; p++) m = q8s_abs_max(m, vs[p * nb + b]);
            }
            bound[b * QL + l] = m;
        }
    }
}

/// One lane's factors for block bound m: 32767 / m (0 for an all-zero block) and m / 32767.
Q8S_INLINE void q8s_bound_factors(float m, float *fs, float *back) {
    *fs = m > 0 ? 32767.0f / m : 0.0f;
    *back = m / 32767.0f;
}

/// attention_values_q8_0_fn: the chunk's weights times each V block's scale rounded to int16 and
/// paired by position against the bound wmax[lane] * vsmax[b][lane], as two multiplies per weight
/// and block, (w * (1 / wmax)) * (vs[p][b] * (32767 / vsmax[b][lane])), scaled back by
/// ws[b][lane] = wmax * (vsmax / 32767); then per lane and dim of block b one exact int32 sum over
/// the pairs, o = fma(sum, ws[b][lane], o). vsmax[b][lane] is bound[b * QL + lane]; with bound
/// NULL (every lane sees every position of the chunk) the chunk's largest |vs[p][b]| for all.
Q8S_INLINE void q8s_values(const int32_t *vp, const float *vs, const float *w, int32_t *wp, float *ws, float *o, int64_t n,
                           int64_t hd, int64_t nl, const float *bound) {
    const int64_t np = (n + 1) / 2, nb = hd / 32;
    float wmax[QL], inv[QL];
    for (int64_t l = 0; l < nl; l++) {
        float mx = 0;
        for (int64_t p = 0; p < n; p++) mx = w[p * QL + l] > mx ? w[p * QL + l] : mx;
        wmax[l] = mx;
        inv[l] = mx > 0 ? 1.0f / mx : 0.0f;
    }
    for (int64_t b = 0; b < nb; b++) {
        if (bound) {
            float fs[QL];
            for (int64_t l = 0; l < nl; l++) {
                float back;
                q8s_bound_factors(bound[b * QL + l], fs + l, &back);
                ws[b * QL + l] = wmax[l] * back;
            }
            for (int64_t pp = 0; pp < np; pp++) {
                const int64_t p = 2 * pp, second = p + 1 < n;
                const float v0 = vs[p * nb + b], v1 = second ? vs[(p + 1) * nb + b] : 0.0f;
                for (int64_t l = 0; l < nl; l++) {
                    const float w0 = w[p * QL + l] * inv[l], w1 = second ? w[(p + 1) * QL + l] * inv[l] : 0.0f;
                    const uint32_t x0 = (uint16_t)q8s_round16(w0 * (v0 * fs[l])), x1 = (uint16_t)q8s_round16(w1 * (v1 * fs[l]));
                    wp[(b * np + pp) * QL + l] = (int32_t)(x0 | x1 << 16);
                }
            }
            continue;
        }
        float m = 0;
        for (int64_t p = 0; p < n; p++) m = fabsf(vs[p * nb + b]) > m ? fabsf(vs[p * nb + b]) : m;
        float fs, back;
        q8s_bound_factors(m, &fs, &back);
        for (int64_t l = 0; l < nl; l++) ws[b * QL + l] = wmax[l] * back;
        for (int64_t pp = 0; pp < np; pp++) {
            const int64_t p = 2 * pp, second = p + 1 < n;
            const float f0 = vs[p * nb + b] * fs, f1 = second ? vs[(p + 1) * nb + b] * fs : 0.0f;
            for (int64_t l = 0; l < nl; l++) {
                const float w0 = w[p * QL + l] * inv[l], w1 = second ? w[(p + 1) * QL + l] * inv[l] : 0.0f;
                const uint32_t x0 = (uint16_t)q8s_round16(w0 * f0), x1 = (uint16_t)q8s_round16(w1 * f1);
                wp[(b * np + pp) * QL + l] = (int32_t)(x0 | x1 << 16);
            }
        }
    }
    for (int64_t l = 0; l < nl; l++)
        for (int64_t b = 0; b < nb; b++)
            for (int e = 0; e < 32; e++) {
                const int64_t dim = 32 * b + e;
                int32_t acc = 0;
                for (int64_t pp = 0; pp < np; pp++) {
                    const int32_t pw = wp[(b * np + pp) * QL + l], pv = vp[pp * hd + dim];
                    acc += (int32_t)(int16_t)pw * (int16_t)pv + (pw >> 16) * (pv >> 16);
                }
                o[l * hd + dim] = fmaf((float)acc, ws[b * QL + l], o[l * hd + dim]);
            }
}

#endif
