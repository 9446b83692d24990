// The per-head attention kernel over an fp16 cache (attention_heads.h) for the ARM64 paths: one
// decoded row under CK_SPLIT_MIN_POSITIONS visible positions, head dim a multiple of 8. The order
// of ck_attention_head_f16_avx2, which ref spells out (ck_attention_head_f16_ref,
// attention_ref.c), so its bits are ref's and the x86 paths':
//   scores  positions from the first visible one in groups of eight: one FMA chain per lane
//           d mod 8 (two float32x4), FADDP, then FADDP, FADDP over four positions is
//           ((x0+x1)+(x2+x3)) + ((x4+x5)+(x6+x7)); the last positions: chains over the lower
//           and upper eight dims of each whole 16-dim group (a last group of eight into the
//           lower), added, ((x0+x4)+(x2+x6)) + ((x1+x5)+(x3+x7)).
//   softmax the canonical exp on four lanes; the weights summed in eight lanes by position from
//           the first (two float32x4), that second tree, its reciprocal.
//   values  one FMLA chain per output over the positions, 64 dims at a time, times 1 / sum.
// K and V read by FCVTL (conversion, no FP16 arithmetic).
#pragma STDC FP_CONTRACT OFF
#include "ck_ops.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#include "kernels_neon.h"
#include "exp_neon.h"

/// Four fp16 values at p as fp32.
static inline float32x4_t half4(const uint8_t *p) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *)p))); }

/// ((y0+y2) + (y1+y3)) of y = lo + hi: ((x0+x4)+(x2+x6)) + ((x1+x5)+(x3+x7)) of x = (lo, hi).
static inline float tree8_halves(float32x4_t lo, float32x4_t hi) {
    const float32x4_t y = vaddq_f32(lo, hi);
    return (vgetq_lane_f32(y, 0) + vgetq_lane_f32(y, 2)) + (vgetq_lane_f32(y, 1) + vgetq_lane_f32(y, 3));
}

/// FADDP of the eight lanes d mod 8 of q . k (position row k): the first level of the pairs tree.
static inline float32x4_t lanes8(const float *q, const uint8_t *k, int64_t hd) {
    float32x4_t lo = vdupq_n_f32(0.0f), hi = vdupq_n_f32(0.0f);
    for (int64_t d = 0; d < hd; d += 8) {
        lo = vfmaq_f32(lo, vld1q_f32(q + d), half4(k + 2 * d));
        hi = vfmaq_f32(hi, vld1q_f32(q + d + 4), half4(k + 2 * d + 8));
    }
    return vpaddq_f32(lo, hi);
}

static void one_head_f16_neon(const head_job *j) {
    const int64_t hd = j->head_dim, n = j->n, rb = j->row_bytes;
    const int64_t grouped = n - n % 8;
    float32x4_t vmax = vdupq_n_f32(-__builtin_inff());
    for (int64_t p = 0; p < grouped; p += 4) {
        float32x4_t x[4];
        for (int r = 0; r < 4; r++) x[r] = lanes8(j->q, j->k + (p + r) * rb, hd);
        const float32x4_t s = vpaddq_f32(vpaddq_f32(x[0], x[1]), vpaddq_f32(x[2], x[3]));
        vst1q_f32(j->w + p, s);
        vmax = vmaxnmq_f32(vmax, s);   // the order of a maximum does not matter; a NaN is skipped as ref's `>` skips it
    }
    float mx = vmaxnmvq_f32(vmax);
    const int64_t whole = hd - hd % 16;
    for (int64_t p = grouped; p < n; p++) {
        const uint8_t *k = j->k + p * rb;
        float32x4_t a[2] = {vdupq_n_f32(0.0f), vdupq_n_f32(0.0f)}, b[2] = {vdupq_n_f32(0.0f), vdupq_n_f32(0.0f)};
        int64_t d = 0;
        for (; d < whole; d += 16)
            for (int c = 0; c < 2; c++) {
                a[c] = vfmaq_f32(a[c], vld1q_f32(j->q + d + 4 * c), half4(k + 2 * d + 8 * c));
                b[c] = vfmaq_f32(b[c], vld1q_f32(j->q + d + 8 + 4 * c), half4(k + 2 * d + 16 + 8 * c));
            }
        if (d < hd)
            for (int c = 0; c < 2; c++) a[c] = vfmaq_f32(a[c], vld1q_f32(j->q + d + 4 * c), half4(k + 2 * d + 8 * c));
        const float s = tree8_halves(vaddq_f32(a[0], b[0]), vaddq_f32(a[1], b[1]));
        j->w[p] = s;
        mx = s > mx ? s : mx;
    }
    // Weights and their sum in eight lanes by position from the first (a padded last group).
    const float32x4_t mv = vdupq_n_f32(mx);
    float32x4_t S[2] = {vdupq_n_f32(0.0f), vdupq_n_f32(0.0f)};
    for (int64_t p = 0; p < n; p += 8)
        for (int c = 0; c < 2; c++) {
            const int64_t q0 = p + 4 * c;
            if (q0 + 4 <= n) {
                const float32x4_t e = ck_exp_neon(vsubq_f32(vld1q_f32(j->w + q0), mv));
                vst1q_f32(j->w + q0, e);
                S[c] = vaddq_f32(S[c], e);
            } else if (q0 < n) {
                float tail[4] = {0};
                const int left = (int)(n - q0);
                for (int i = 0; i < left; i++) tail[i] = j->w[q0 + i];
                vst1q_f32(tail, ck_exp_neon(vsubq_f32(vld1q_f32(tail), mv)));
                for (int i = 0; i < left; i++) j->w[q0 + i] = tail[i];
                for (int i = left; i < 4; i++) tail[i] = 0;
                S[c] = vaddq_f32(S[c], vld1q_f32(tail));
            }
        }
    const float32x4_t inv = vdupq_n_f32(1.0f / tree8_halves(S[0], S[1]));
    for (int64_t d0 = 0; d0 < hd; d0 += 64) {
        const int n4 = (int)((hd - d0 < 64 ? hd - d0 : 64) / 4);
        float32x4_t acc[16];
        for (int i = 0; i < n4; i++) acc[i] = vdupq_n_f32(0.0f);
        const uint8_t *vp = j->v + 2 * d0;
        for (int64_t p = 0; p < n; p++, vp += rb) {
            const float32x4_t wp = vdupq_n_f32(j->w[p]);
            for (int i = 0; i < n4; i++) acc[i] = vfmaq_f32(acc[i], wp, half4(vp + 8 * i));
        }
        for (int i = 0; i < n4; i++) vst1q_f32(j->out + d0 + 4 * i, vmulq_f32(acc[i], inv));
    }
}

/// Each of the job's heads alone, one pass over K and V each.
void ck_attention_head_f16_neon(const head_job *j) { ck_head_job_each(j, one_head_f16_neon); }

#endif
