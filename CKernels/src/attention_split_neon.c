// The split-K decode unit (attention_split.c) over fp16 and MXFP8 E4M3 caches for the ARM64
// paths (NEON, ARMv8.0), in the canonical order (docs/kernels.md, "One order for attention";
// ck_attention_split_ref spells it out), so its bits are ref's and the x86 paths'. The AVX-512
// unit's structure: K in blocks of eight rows, every KV head's query heads up to four at a time
// so each row segment is converted once for them, then the softmax, then V in blocks of eight
// rows. K and V are read by conversion (FCVTL from fp16; E4M3 codes moved into an fp16 first),
// never by FP16 arithmetic; every FMA is where ref has an fmaf (FMLA), nothing else fuses.
//   score   fp16: four float32x4 accumulators stand for the 16 lanes (dims d mod 16 in 0-3,
//           4-7, 8-11, 12-15), one FMA chain each over the head dim (a last 8 dims into the
//           first two); lanes 8-15 added onto 0-7, then FADDP, FADDP, FADDP over four rows is
//           ((x0+x1)+(x2+x3)) + ((x4+x5)+(x6+x7)) for each. MXFP8: per 32-dim block two
//           float32x4 chains t (lanes l = 0-7) over the block's four groups of eight codes, then
//           acc = fma(t, 256 * 2^(e-127), acc); the same tree.
//   softmax w = e^(s - max) by the canonical exp (exp_neon.h); their sum in 16 lanes by position
//           (four float32x4): whole 32-position pairs into A and B, A += B, the rest 16 at a time
//           into A; lanes 8-15 onto 0-7, then ((y0+y4)+(y2+y6)) + ((y1+y5)+(y3+y7)).
//   values  one FMA chain per output over the range's positions in order, through the partial
//           slot between blocks; MXFP8 values code * (256 * 2^(e-127)), one rounding.
#pragma STDC FP_CONTRACT OFF
#include "ck_ops.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#include "ck_mx.h"
#include "kernels_neon.h"
#include "exp_neon.h"

#define INLINE static inline __attribute__((always_inline))

/// Query heads per pass over a K row or a V block (split_pass's); rows per K and V block and how
/// far ahead the passes prefetch (as the x86 units: a block is read KV head by KV head,
/// row_bytes apart).
enum { GW = SPLIT_GW, BLOCK = 8, PREFETCH_ROWS = 16 };

/// CALL with G_ a constant 1 .. GW, so the head loops unroll into registers.
#define FOR_G(G, CALL) switch (G) { case 1: { const int G_ = 1; CALL; } break; case 2: { const int G_ = 2; CALL; } break; \
                                    case 3: { const int G_ = 3; CALL; } break; default: { const int G_ = 4; CALL; } break; }

/// Eight fp16 values at p as two float32x4 (FCVTL, FCVTL2).
INLINE void half8(const uint8_t *p, float32x4_t out[2]) {
    const float16x8_t h = vreinterpretq_f16_u16(vld1q_u16((const uint16_t *)p));
    out[0] = vcvt_f32_f16(vget_low_f16(h));
    out[1] = vcvt_high_f32_f16(h);
}

/// Sixteen E4M3 codes as fp32 values without their 2^8 (sign and 7 bits moved into an fp16,
/// ref's e4m3_code: S.1111.111 reads as 480, the quantizer writes it only for NaN input).
INLINE void e4m3_codes16(const uint8_t *c, float32x4_t out[4]) {
    const uint8x16_t b = vld1q_u8(c);
    const uint8x16_t sign = vandq_u8(b, vdupq_n_u8(0x80)), mag = vandq_u8(b, vdupq_n_u8(0x7F));
    const uint16x8_t h0 = vorrq_u16(vshll_n_u8(vget_low_u8(sign), 8), vshlq_n_u16(vmovl_u8(vget_low_u8(mag)), 7));
    const uint16x8_t h1 = vorrq_u16(vshll_high_n_u8(sign, 8), vshlq_n_u16(vmovl_high_u8(mag), 7));
    out[0] = vcvt_f32_f16(vreinterpret_f16_u16(vget_low_u16(h0)));
    out[1] = vcvt_high_f32_f16(vreinterpretq_f16_u16(h0));
    out[2] = vcvt_f32_f16(vreinterpret_f16_u16(vget_low_u16(h1)));
    out[3] = vcvt_high_f32_f16(vreinterpretq_f16_u16(h1));
}

/// 256 * 2^(e - 127) of an MXFP8 block (ref's mxfp8_unit_scale).
INLINE float unit_scale(const ck_block_mxfp8 *blk) { return 256.0f * ck_e8m0_to_fp32(blk->e); }

/// out[i] = FADDP of the 8 lanes (lanes 0-3, 4-7) of head i against one K row segment:
/// (x0+x1, x2+x3, x4+x5, x6+x7), the first level of the tree, for the G query heads q + i*hd.
INLINE void row_dots(const int mx8, const float *q, int64_t hd, const uint8_t *seg, const int G, float32x4_t *out) {
    float32x4_t acc[GW][4];
    for (int i = 0; i < G; i++)
        for (int c = 0; c < 4; c++) acc[i][c] = vdupq_n_f32(0.0f);
    if (!mx8) {
        int64_t d = 0;
        for (; d + 16 <= hd; d += 16) {
            float32x4_t k[4];
            half8(seg + 2 * d, k);
            half8(seg + 2 * d + 16, k + 2);
            for (int i = 0; i < G; i++)
                for (int c = 0; c < 4; c++) acc[i][c] = vfmaq_f32(acc[i][c], vld1q_f32(q + i * hd + d + 4 * c), k[c]);
        }
        if (d < hd) {   // the last 8 dims (hd % 16 == 8): lanes 0-7's chains
            float32x4_t k[2];
            half8(seg + 2 * d, k);
            for (int i = 0; i < G; i++)
                for (int c = 0; c < 2; c++) acc[i][c] = vfmaq_f32(acc[i][c], vld1q_f32(q + i * hd + d + 4 * c), k[c]);
        }
        for (int i = 0; i < G; i++) out[i] = vpaddq_f32(vaddq_f32(acc[i][0], acc[i][2]), vaddq_f32(acc[i][1], acc[i][3]));
        return;
    }
    const ck_block_mxfp8 *blk = (const ck_block_mxfp8 *)seg;
    for (int64_t b = 0; b < hd / 32; b++) {
        float32x4_t k[8];
        e4m3_codes16(blk[b].qs, k);
        e4m3_codes16(blk[b].qs + 16, k + 4);
        const float32x4_t us = vdupq_n_f32(unit_scale(blk + b));
        for (int i = 0; i < G; i++) {
            const float *qb = q + i * hd + 32 * b;
            float32x4_t t0 = vdupq_n_f32(0.0f), t1 = vdupq_n_f32(0.0f);   // lanes 0-3, 4-7
            for (int c = 0; c < 4; c++) {
                t0 = vfmaq_f32(t0, vld1q_f32(qb + 8 * c), k[2 * c]);
                t1 = vfmaq_f32(t1, vld1q_f32(qb + 8 * c + 4), k[2 * c + 1]);
            }
            acc[i][0] = vfmaq_f32(acc[i][0], t0, us);
            acc[i][1] = vfmaq_f32(acc[i][1], t1, us);
        }
    }
    for (int i = 0; i < G; i++) out[i] = vpaddq_f32(acc[i][0], acc[i][1]);
}

/// Scores s[i*len + p] of G query heads for rows [p0, p1) of one KV head (kg: its segment in the
/// range's first row), four rows at a time (two more FADDP levels give the four scores); a last
/// group of fewer repeats its last row and keeps only its own scores.
INLINE void score_rows(const int mx8, const float *q, int64_t hd, const uint8_t *kg, int64_t row_bytes, int64_t p0,
                       int64_t p1, const int G, float *s, int64_t len) {
    for (int64_t p = p0; p < p1; p += 4) {
        const int64_t n = p1 - p < 4 ? p1 - p : 4;
        float32x4_t part[4][GW];
        for (int r = 0; r < 4; r++) row_dots(mx8, q, hd, kg + (p + (r < n ? r : n - 1)) * row_bytes, G, part[r]);
        for (int i = 0; i < G; i++) {
            const float32x4_t sc = vpaddq_f32(vpaddq_f32(part[0][i], part[1][i]), vpaddq_f32(part[2][i], part[3][i]));
            if (n == 4) vst1q_f32(s + i * len + p, sc);
            else {
                float lanes[4];
                vst1q_f32(lanes, sc);
                for (int64_t r = 0; r < n; r++) s[i * len + p + r] = lanes[r];
            }
        }
    }
}

/// Per head: the max of s, s replaced by e^(s - max) and their sum in the canonical 16-lane order
/// into m and l; the partial output zeroed.
static void range_softmax_neon(const range_job *j) {
    const int64_t hd = j->hd, len = j->len;
    const float32x4_t zero = vdupq_n_f32(0.0f);
    for (int64_t h = 0; h < j->heads; h++) {
        float *sh = j->s + h * len;
        // The maximum does not depend on the order; FMAXNM skips a NaN score as ref's `>` does.
        float32x4_t vmax = vdupq_n_f32(-__builtin_inff());
        int64_t p = 0;
        for (; p + 4 <= len; p += 4) vmax = vmaxnmq_f32(vmax, vld1q_f32(sh + p));
        float mx = vmaxnmvq_f32(vmax);
        for (; p < len; p++) mx = sh[p] > mx ? sh[p] : mx;
        const float32x4_t mv = vdupq_n_f32(mx);
        float32x4_t A[4] = {zero, zero, zero, zero}, B[4] = {zero, zero, zero, zero};
        for (p = 0; p + 32 <= len; p += 32)
            for (int c = 0; c < 4; c++) {
                const float32x4_t e0 = ck_exp_neon(vsubq_f32(vld1q_f32(sh + p + 4 * c), mv));
                const float32x4_t e1 = ck_exp_neon(vsubq_f32(vld1q_f32(sh + p + 16 + 4 * c), mv));
                vst1q_f32(sh + p + 4 * c, e0);
                vst1q_f32(sh + p + 16 + 4 * c, e1);
                A[c] = vaddq_f32(A[c], e0);
                B[c] = vaddq_f32(B[c], e1);
            }
        for (int c = 0; c < 4; c++) A[c] = vaddq_f32(A[c], B[c]);
        for (; p < len; p += 4) {   // the rest, 16 at a time into A: lane group (p / 4) % 4
            float32x4_t e;
            if (p + 4 <= len) {
                e = ck_exp_neon(vsubq_f32(vld1q_f32(sh + p), mv));
                vst1q_f32(sh + p, e);
            } else {
                float tail[4] = {0};
                const int left = (int)(len - p);
                for (int i = 0; i < left; i++) tail[i] = sh[p + i];
                vst1q_f32(tail, ck_exp_neon(vsubq_f32(vld1q_f32(tail), mv)));
                for (int i = 0; i < left; i++) sh[p + i] = tail[i];
                for (int i = left; i < 4; i++) tail[i] = 0;
                e = vld1q_f32(tail);
            }
            A[(p / 4) % 4] = vaddq_f32(A[(p / 4) % 4], e);
        }
        float y[8];
        vst1q_f32(y, vaddq_f32(A[0], A[2]));       // x0..x3 = A0..3 + A8..11
        vst1q_f32(y + 4, vaddq_f32(A[1], A[3]));   // x4..x7 = A4..7 + A12..15
        j->m[h] = mx;
        j->l[h] = ((y[0] + y[4]) + (y[2] + y[6])) + ((y[1] + y[5]) + (y[3] + y[7]));
        for (int64_t d = 0; d < hd; d += 4) vst1q_f32(j->o + h * hd + d, zero);
    }
}

/// o_i[d0 .. d0 + 4 NC) += sum_{p in [p0, p1)} w_i[p] * V_p[same dims] for the G heads (w_i =
/// w + i*len, o_i = o + i*hd), one KV head (vg: its segment in the range's first row): one FMA
/// chain per output, each row's NC vectors converted once for all G heads. MXFP8: NC = 4, d0 a
/// multiple of 16 (half a block).
INLINE void v_rows(const int mx8, const float *w, int64_t len, const uint8_t *vg, int64_t row_bytes, int64_t d0,
                   int64_t p0, int64_t p1, const int G, const int NC, float *o, int64_t hd) {
    float32x4_t acc[GW][4];
    for (int i = 0; i < G; i++)
        for (int c = 0; c < NC; c++) acc[i][c] = vld1q_f32(o + i * hd + d0 + 4 * c);
    for (int64_t p = p0; p < p1; p++) {
        float32x4_t v[4];
        if (!mx8) {
            const uint8_t *row = vg + p * row_bytes + 2 * d0;
            for (int c = 0; c < NC; c += 2) half8(row + 8 * c, v + c);
        } else {
            const ck_block_mxfp8 *blk = (const ck_block_mxfp8 *)(vg + p * row_bytes) + d0 / 32;
            const float us = unit_scale(blk);
            e4m3_codes16(blk->qs + d0 % 32, v);
            for (int c = 0; c < 4; c++) v[c] = vmulq_n_f32(v[c], us);
        }
        for (int i = 0; i < G; i++) {
            const float32x4_t wp = vdupq_n_f32(w[i * len + p]);
            for (int c = 0; c < NC; c++) acc[i][c] = vfmaq_f32(acc[i][c], wp, v[c]);
        }
    }
    for (int i = 0; i < G; i++)
        for (int c = 0; c < NC; c++) vst1q_f32(o + i * hd + d0 + 4 * c, acc[i][c]);
}

/// split_pass's K step: the scores of query heads h .. h+G-1 for rows [b0, b1) of KV head g.
INLINE void k_step(const int mx8, const range_job *j, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) {
    FOR_G(G, score_rows(mx8, j->q + h * j->hd, j->hd, j->k + g * j->head_bytes, j->row_bytes, b0, b1, G_, j->s + h * j->len, j->len))
}

/// split_pass's V step: rows [b0, b1) of KV head g into the partial outputs of query heads
/// h .. h+G-1, 16 dims at a time (fp16: a last 8).
INLINE void v_step(const int mx8, const range_job *j, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) {
    const int64_t hd = j->hd, len = j->len;
    const uint8_t *vg = j->v + g * j->head_bytes;
    float *o = j->o + h * hd;
    const float *w = j->s + h * len;
    int64_t d0 = 0;
    for (; d0 + 16 <= hd; d0 += 16) { FOR_G(G, v_rows(mx8, w, len, vg, j->row_bytes, d0, b0, b1, G_, 4, o, hd)) }
    if (d0 < hd) { FOR_G(G, v_rows(mx8, w, len, vg, j->row_bytes, d0, b0, b1, G_, 2, o, hd)) }   // fp16: 8 dims
}

static void k_step_f16(const range_job *j, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) { k_step(0, j, g, h, G, b0, b1); }
static void k_step_mxfp8(const range_job *j, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) { k_step(1, j, g, h, G, b0, b1); }
static void v_step_f16(const range_job *j, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) { v_step(0, j, g, h, G, b0, b1); }
static void v_step_mxfp8(const range_job *j, int64_t g, int64_t h, int G, int64_t b0, int64_t b1) { v_step(1, j, g, h, G, b0, b1); }

/// The unit: the x86 units' one walk (split_pass) around this format's K and V steps.
INLINE void range_neon(const range_job *j, split_block_fn k, split_block_fn v) {
    split_pass(j, BLOCK, j->k, PREFETCH_ROWS, k);
    range_softmax_neon(j);
    split_pass(j, BLOCK, j->v, PREFETCH_ROWS, v);
}

void ck_attention_split_f16_neon(const range_job *j) {
    if (j->hd % 8 != 0) { ck_attention_split_ref(j); return; }
    range_neon(j, k_step_f16, v_step_f16);
}

void ck_attention_split_mxfp8_neon(const range_job *j) { range_neon(j, k_step_mxfp8, v_step_mxfp8); }
#endif
