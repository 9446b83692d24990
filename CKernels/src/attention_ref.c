// The reference path's attention kernels: scalar C (no target attributes, any x86-64) that
// computes every sum of the SIMD kernels in their order, lane for lane, so `ref` gives the fast
// paths' bits (docs/kernels.md, "One order for attention"):
//   - the split-K unit over fp16 and MXFP8 caches (attention_split.c's units),
//   - the per-head kernel over a short fp16 context (ck_attention_head_f16_avx2),
//   - the blocked prefill's three phases (attention_tiled.c's 8-lane tiles and softmax),
//   - over a q8_0 cache, the split-K unit's and the prefill's integer scheme
//     (attention_q8_0_scalar.h, whose bodies these are).
// e^x is ck_exp_scalar (exp_scalar.h), the vector exp's steps for one lane; every fused
// multiply-add of the SIMD code is an fmaf here and nothing else is fused.
#pragma STDC FP_CONTRACT OFF
#include <math.h>
#include <string.h>
#include "ck_ops.h"
#include "ck_convert.h"
#include "ck_blocks.h"
#include "ck_mx.h"
#include "attention_split_unit.h"
#include "attention_heads.h"
#include "attention_tiles.h"
#include "attention_tiled.h"
#include "exp_scalar.h"
#include "attention_q8_0_scalar.h"

/// ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7)): the hadd tree of hsum8 / hsum4
/// (attention_split.c, attention_split_avx512.c, ck_attention_head_f16_avx2's whole groups of
/// eight positions).
static float tree8_pairs(const float *x) {
    return ((x[0] + x[1]) + (x[2] + x[3])) + ((x[4] + x[5]) + (x[6] + x[7]));
}

/// ((x0 + x4) + (x2 + x6)) + ((x1 + x5) + (x3 + x7)): ck_hsum256's tree (avx2_reduce.h), also
/// sum16's (attention_split_avx512.h) once its upper eight lanes are added to the lower.
static float tree8_halves(const float *x) {
    return ((x[0] + x[4]) + (x[2] + x[6])) + ((x[1] + x[5]) + (x[3] + x[7]));
}

// ---- split-K unit ----------------------------------------------------------------------------

/// The score of query q against one K head segment, the split-K order: lane l (0..7) is
/// a_l + b_l, a_l the FMA chain over the dims d with d mod 16 = l and b_l over d mod 16 = 8 + l
/// (dims ascending); the eight lanes reduced by tree8_pairs. fp16 (and any format decoded to fp32).
static float score_f16(const float *q, const float *k, int64_t hd) {
    float a[8] = {0}, b[8] = {0}, x[8];
    for (int64_t d = 0; d < hd; d++) {
        const int l = (int)(d % 16);
        if (l < 8) a[l] = fmaf(q[d], k[d], a[l]);
        else b[l - 8] = fmaf(q[d], k[d], b[l - 8]);
    }
    for (int l = 0; l < 8; l++) x[l] = a[l] + b[l];
    return tree8_pairs(x);
}

/// fp16 value of an E4M3 code without its 2^8 (attention_kv_avx2.h's kv_codes8: the code's sign
/// and 7 bits moved into an fp16; S.1111.111 gives 480).
static float e4m3_code(uint8_t c) {
    return ck_fp16_to_fp32((ck_half)(((c & 0x80) << 8) | ((c & 0x7F) << 7)));
}

/// The block scale times the codes' unit of an MXFP8 block (kv_unit * kv_block_scale).
static float mxfp8_unit_scale(const ck_block_mxfp8 *blk) { return 256.0f * ck_e8m0_to_fp32(blk->e); }

/// The score of q against one MXFP8 K head segment: lane l (0..7) per block b a chain t over
/// the block's four groups of eight codes (dims 32b + 8c + l), then acc_l = fma(t, unit * scale,
/// acc_l) over the blocks; tree8_pairs.
static float score_mxfp8(const float *q, const uint8_t *seg, int64_t hd) {
    float acc[8] = {0};
    const ck_block_mxfp8 *blk = (const ck_block_mxfp8 *)seg;
    for (int64_t b = 0; b < hd / 32; b++) {
        const float us = mxfp8_unit_scale(blk + b);
        for (int l = 0; l < 8; l++) {
            float t = 0;
            for (int c = 0; c < 4; c++) t = fmaf(q[32 * b + 8 * c + l], e4m3_code(blk[b].qs[8 * c + l]), t);
            acc[l] = fmaf(t, us, acc[l]);
        }
    }
    return tree8_pairs(acc);
}

/// One V head segment as the split-K units weigh it: fp16 converted, MXFP8 codes times unit *
/// scale (one rounding), q8_0 and others as ck_kv_load_row decodes them.
static void v_values(ck_kv_format f, const uint8_t *seg, float *out, int64_t hd) {
    if (f != CK_KV_MXFP8_E4M3) { ck_kv_load_row(f, seg, out, hd); return; }
    const ck_block_mxfp8 *blk = (const ck_block_mxfp8 *)seg;
    for (int64_t b = 0; b < hd / 32; b++) {
        const float us = mxfp8_unit_scale(blk + b);
        for (int e = 0; e < 32; e++) out[32 * b + e] = e4m3_code(blk[b].qs[e]) * us;
    }
}

/// The split-K range softmax (range_softmax16, attention_split_avx512.h): w = e^(s - max) and
/// their sum in 16 lanes, whole 32-position pairs into two sums A (positions p mod 32 < 16) and
/// B, then A += B, then the rest 16 at a time into A; the 16 lanes reduced as sum16 does.
/// Returns the sum, s replaced by the weights.
static float range_weights(float *s, int64_t len, float mx) {
    float A[16] = {0}, B[16] = {0};
    for (int64_t p = 0; p < len; p++) s[p] = ck_exp_scalar(s[p] - mx);
    int64_t p = 0;
    for (; p + 32 <= len; p += 32)
        for (int i = 0; i < 16; i++) { A[i] += s[p + i]; B[i] += s[p + 16 + i]; }
    for (int i = 0; i < 16; i++) A[i] += B[i];
    for (; p < len; p += 16)
        for (int i = 0; i < 16 && p + i < len; i++) A[i] += s[p + i];
    float x[8];
    for (int i = 0; i < 8; i++) x[i] = A[i] + A[i + 8];
    return tree8_halves(x);
}

/// The split-K unit over a q8_0 cache: per head the query rounded to int16, the scores and the
/// weighted V in blocks of Q8S_VROWS rows from the range's first (attention_q8_0_scalar.h).
static void split_q8_0(const range_job *j) {
    const int64_t hd = j->hd, len = j->len;
    for (int64_t h = 0; h < j->heads; h++) {
        const int64_t g = h / j->group;
        int16_t *q16 = j->q16 + h * hd;
        q8s_quantize_query(j->q + h * hd, hd, q16, j->qs + h);
        float *s = j->s + h * len, mx = -INFINITY;
        for (int64_t p = 0; p < len; p++) {
            s[p] = q8s_split_score(q16, j->qs[h], j->k + p * j->row_bytes + g * j->head_bytes, hd);
            mx = s[p] > mx ? s[p] : mx;
        }
        j->m[h] = mx;
        j->l[h] = range_weights(s, len, mx);
        float *o = j->o + h * hd;
        for (int64_t d = 0; d < hd; d++) o[d] = 0;
        for (int64_t b0 = 0; b0 < len; b0 += Q8S_VROWS)
            q8s_split_values(s, j->v + g * j->head_bytes, j->row_bytes, b0, len - b0 < Q8S_VROWS ? len : b0 + Q8S_VROWS, o, hd);
    }
}

void ck_attention_split_ref(const range_job *j) {
    const int64_t hd = j->hd, len = j->len;
    if (j->format == CK_KV_Q8_0) { split_q8_0(j); return; }
    for (int64_t h = 0; h < j->heads; h++) {
        const float *q = j->q + h * hd;
        const int64_t g = h / j->group;
        float *s = j->s + h * len, mx = -INFINITY;
        for (int64_t p = 0; p < len; p++) {
            const uint8_t *seg = j->k + p * j->row_bytes + g * j->head_bytes;
            float dot;
            if (j->format == CK_KV_MXFP8_E4M3) dot = score_mxfp8(q, seg, hd);
            else {
                ck_kv_load_row(j->format, seg, j->tmp, hd);
                dot = score_f16(q, j->tmp, hd);
            }
            s[p] = dot;
            mx = dot > mx ? dot : mx;
        }
        j->m[h] = mx;
        j->l[h] = range_weights(s, len, mx);
        for (int64_t d = 0; d < hd; d++) j->o[h * hd + d] = 0;
    }
    // The weighted V: one FMA chain per output over the positions in order.
    for (int64_t p = 0; p < len; p++)
        for (int64_t h = 0; h < j->heads; h++) {
            v_values(j->format, j->v + p * j->row_bytes + h / j->group * j->head_bytes, j->tmp, hd);
            const float w = j->s[h * len + p];
            float *o = j->o + h * hd;
            for (int64_t d = 0; d < hd; d++) o[d] = fmaf(w, j->tmp[d], o[d]);
        }
}

// ---- per-head kernel over fp16 ----------------------------------------------------------------

/// ck_attention_head_f16_avx2's order: positions from the first visible one in groups of eight
/// score with one chain per lane (dims d mod 8) and tree8_pairs, the rest with two chains (d mod
/// 16 below and from 8) added and tree8_halves; weights summed in 8 lanes by position mod 8 from
/// the first, tree8_halves, and the weighted V one chain per dim times 1 / sum.
static void one_head_f16_ref(const head_job *j) {
    const int64_t hd = j->head_dim, n = j->n;
    float mx = -INFINITY;
    const int64_t grouped = n - n % 8;
    for (int64_t p = 0; p < n; p++) {
        ck_kv_load_row(CK_KV_F16, j->k + p * j->row_bytes, j->tmp, hd);
        float x[8];
        if (p < grouped) {
            for (int l = 0; l < 8; l++) x[l] = 0;
            for (int64_t d = 0; d < hd; d++) x[d % 8] = fmaf(j->q[d], j->tmp[d], x[d % 8]);
            j->w[p] = tree8_pairs(x);
        } else {
            // Dims of whole 16-dim groups: the lower eight into a, the upper into b; a last
            // group of eight into a.
            float a[8] = {0}, b[8] = {0};
            const int64_t whole = hd - hd % 16;
            for (int64_t d = 0; d < hd; d++) {
                if (d < whole && d % 16 >= 8) b[d % 8] = fmaf(j->q[d], j->tmp[d], b[d % 8]);
                else a[d % 8] = fmaf(j->q[d], j->tmp[d], a[d % 8]);
            }
            for (int l = 0; l < 8; l++) x[l] = a[l] + b[l];
            j->w[p] = tree8_halves(x);
        }
        mx = j->w[p] > mx ? j->w[p] : mx;
    }
    float S[8] = {0};
    for (int64_t p = 0; p < n; p++) {
        j->w[p] = ck_exp_scalar(j->w[p] - mx);
        S[p % 8] += j->w[p];
    }
    const float inv = 1.0f / tree8_halves(S);
    for (int64_t d = 0; d < hd; d++) j->out[d] = 0;
    for (int64_t p = 0; p < n; p++) {
        ck_kv_load_row(CK_KV_F16, j->v + p * j->row_bytes, j->tmp, hd);
        for (int64_t d = 0; d < hd; d++) j->out[d] = fmaf(j->w[p], j->tmp[d], j->out[d]);
    }
    for (int64_t d = 0; d < hd; d++) j->out[d] *= inv;
}

/// Each of the job's heads alone: the AVX2 kernel's passes over two heads give each head these
/// sums.
void ck_attention_head_f16_ref(const head_job *j) { ck_head_job_each(j, one_head_f16_ref); }

// ---- blocked prefill phases ------------------------------------------------------------------

void ck_attention_scores_ref(const float *kc, const float *qt, float *s, int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf) {
    (void)pf;
    for (int64_t p = 0; p < cn; p++)
        for (int64_t lane = 0; lane < nl; lane++) {
            float acc = 0;
            for (int64_t d = 0; d < hd; d++) acc = fmaf(kc[p * hd + d], qt[d * QL + lane], acc);
            s[p * QL + lane] = acc;
        }
}

void ck_attention_values_ref(const float *vc, const float *w, float *o, int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf) {
    (void)pf;
    for (int64_t lane = 0; lane < nl; lane++)
        for (int64_t d = 0; d < hd; d++) {
            float acc = o[lane * hd + d];
            for (int64_t p = 0; p < cn; p++) acc = fmaf(w[p * QL + lane], vc[p * hd + d], acc);
            o[lane * hd + d] = acc;
        }
}

void ck_attention_softmax_ref(float *s, float *o, int64_t cn, int64_t hd, int64_t nl, int64_t p0, int masked,
                              const int32_t *first, const int32_t *last, float *run_max, float *run_sum) {
    for (int64_t lane = 0; lane < nl; lane++) {
        float mx = -INFINITY;
        for (int64_t p = 0; p < cn; p++) {
            const int hidden = masked && (p0 + p < first[lane] || p0 + p > last[lane]);
            const float x = hidden ? -INFINITY : s[p * QL + lane];
            mx = x > mx ? x : mx;   // MAXPS(mx, x): x unless mx is larger
        }
        const float old = run_max[lane], now = mx > old ? mx : old;
        float sum = run_sum[lane];
        if (now > old) {
            const float a = ck_exp_scalar(old - now);
            sum *= a;
            for (int64_t d = 0; d < hd; d++) o[lane * hd + d] *= a;
            run_max[lane] = now;
        }
        for (int64_t p = 0; p < cn; p++) {
            const int hidden = masked && (p0 + p < first[lane] || p0 + p > last[lane]);
            const float w = hidden ? 0.0f : ck_exp_scalar(s[p * QL + lane] - now);
            s[p * QL + lane] = w;
            sum += w;
        }
        run_sum[lane] = sum;
    }
}

void ck_attention_scores_q8_0_ref(const int16_t *kc, const float *ks, const int16_t *qt, const float *qs, float *s,
                                  int64_t cn, int64_t hd, int64_t nl, row_prefetch *pf) {
    (void)pf;
    q8s_scores(kc, ks, qt, qs, s, cn, hd, nl);
}

void ck_attention_values_q8_0_ref(const int32_t *vp, const float *vs, const float *w, int32_t *wp, float *ws, float *o,
                                  int64_t n, int64_t hd, int64_t nl, const float *bound, row_prefetch *pf) {
    (void)pf;
    q8s_values(vp, vs, w, wp, ws, o, n, hd, nl, bound);
}

void ck_attention_rows_ref(const ck_attention_desc *d, const uint8_t *base, int64_t p0, int64_t n, float *dst) {
    for (int64_t i = 0; i < n; i++) ck_kv_load_row(d->format, base + (p0 + i) * d->row_bytes, dst + i * d->head_dim, d->head_dim);
}
