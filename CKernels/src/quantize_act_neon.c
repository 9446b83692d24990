// ARM64 activation quantizer: quantize_act_body.h (the reference's one body and schemes) over
// NEON primitives with the reference's results. FMAXNM / FMINNM are IEEE maxNum / minNum, so a NaN
// input is skipped by the block maximum and clamps to -127 exactly as fmaxf / fminf do; FRINTN
// rounds to nearest even as nearbyintf does under the default rounding mode.
#pragma STDC FP_CONTRACT OFF

#include "ck_matmul.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#include "ck_convert.h"

/// max |x[i]| over n floats (n a multiple of 32); maximum is order-independent, so the lanes'
/// order does not change the result.
static float amax_of(const float *x, int n) {
    float32x4_t m = vdupq_n_f32(0.0f);
    for (int i = 0; i < n; i += 4) m = vmaxnmq_f32(m, vabsq_f32(vld1q_f32(x + i)));
    return vmaxnmvq_f32(m);
}

static void quantize32(const float *x, float mul, int8_t *q, int *s0, int *s1) {
    const float32x4_t lo = vdupq_n_f32(-127.0f), hi = vdupq_n_f32(127.0f);
    int16x8_t h[4];
    for (int i = 0; i < 4; i++) {
        int32x4_t v[2];
        for (int p = 0; p < 2; p++) {
            float32x4_t f = vrndnq_f32(vmulq_n_f32(vld1q_f32(x + 8 * i + 4 * p), mul));
            v[p] = vcvtq_s32_f32(vminnmq_f32(hi, vmaxnmq_f32(lo, f)));
        }
        h[i] = vcombine_s16(vmovn_s32(v[0]), vmovn_s32(v[1]));
    }
    vst1q_s8(q, vcombine_s8(vmovn_s16(h[0]), vmovn_s16(h[1])));
    vst1q_s8(q + 16, vcombine_s8(vmovn_s16(h[2]), vmovn_s16(h[3])));
    *s0 = vaddlvq_s16(h[0]) + vaddlvq_s16(h[1]);
    *s1 = vaddlvq_s16(h[2]) + vaddlvq_s16(h[3]);
}

static float fp16_round(float f) { return ck_fp16_to_fp32(ck_fp32_to_fp16(f)); }

#define QUANTIZE_ACT_NAME ck_quantize_act_neon
#define QUANTIZE_ACT_ATTR
#include "quantize_act_body.h"

#endif
