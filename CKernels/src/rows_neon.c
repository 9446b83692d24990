// ARM64 (NEON, every ARM path) twins of the row ops that have a per-path slot in the kernel
// table: SwiGLU, GeGLU and RMSNorm of consecutive vectors. Each does the reference's operations
// (ops.c) in the reference's order, so its bits are ck_*_ref's and the x86 paths':
//   SwiGLU  e^(0 - g) by the canonical exp on four lanes (exp_neon.h), then g / (1 + e) * u
//           (FDIV is IEEE division).
//   GeGLU   FCVTN rounds fp32 to fp16 to nearest even as ck_fp32_to_fp16 (and F16C) do, NaN
//           quieted with its top payload bits (FPCR.DN is clear under Linux and macOS); the fp16
//           bits index the gelu table (four loads: NEON has no gather); g <= -10 and g >= 10
//           selected afterwards, as ck_geglu_avx2 blends them.
//   RMSNorm four vectors at a time, their sums of squares in fp64 side by side (two float64x2
//           registers, each lane one vector's chain in the reference's order; the products of
//           two floats are exact in fp64), then y = x * scale * w on four lanes.
// Tails (n not a multiple of 4, fewer than four vectors left) run the reference.
#pragma STDC FP_CONTRACT OFF
#include "ck_ops.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#include <math.h>
#include "kernels_neon.h"
#include "exp_neon.h"

void ck_swiglu_neon(float *gate, const float *up, int64_t n) {
    const float32x4_t one = vdupq_n_f32(1.0f), zero = vdupq_n_f32(0.0f);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const float32x4_t g = vld1q_f32(gate + i);
        const float32x4_t e = ck_exp_neon(vsubq_f32(zero, g));
        vst1q_f32(gate + i, vmulq_f32(vdivq_f32(g, vaddq_f32(one, e)), vld1q_f32(up + i)));
    }
    if (i < n) ck_swiglu_ref(gate + i, up + i, n - i);
}

/// Four table entries by the fp16 bits h.
static inline float32x4_t gelu_lookup(const float *table, uint16x4_t h) {
    float32x4_t t = vdupq_n_f32(0.0f);
    t = vld1q_lane_f32(table + vget_lane_u16(h, 0), t, 0);
    t = vld1q_lane_f32(table + vget_lane_u16(h, 1), t, 1);
    t = vld1q_lane_f32(table + vget_lane_u16(h, 2), t, 2);
    t = vld1q_lane_f32(table + vget_lane_u16(h, 3), t, 3);
    return t;
}

void ck_geglu_neon(float *gate, const float *up, int64_t n) {
    const float *table = ck_gelu_table();
    const float32x4_t lo = vdupq_n_f32(-10.0f), hi = vdupq_n_f32(10.0f), zero = vdupq_n_f32(0.0f);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const float32x4_t g = vld1q_f32(gate + i), u = vld1q_f32(up + i);
        const uint16x4_t h = vreinterpret_u16_f16(vcvt_f16_f32(g));
        float32x4_t y = vmulq_f32(gelu_lookup(table, h), u);
        y = vbslq_f32(vcgeq_f32(g, hi), vmulq_f32(g, u), y);
        y = vbslq_f32(vcleq_f32(g, lo), zero, y);
        vst1q_f32(gate + i, y);
    }
    if (i < n) ck_geglu_ref(gate + i, up + i, n - i);
}

/// ck_rms_norm of the four vectors x + v*width (v = 0..3, width a multiple of 4) into y + v*width.
static void rms_norm4(const float *x, const float *w, float *y, int64_t width, float eps) {
    float64x2_t s01 = vdupq_n_f64(0.0), s23 = vdupq_n_f64(0.0);   // lanes: vectors 0, 1 / 2, 3
    for (int64_t i = 0; i < width; i += 4) {
        const float32x4_t a = vld1q_f32(x + i), b = vld1q_f32(x + width + i);
        const float32x4_t c = vld1q_f32(x + 2 * width + i), d = vld1q_f32(x + 3 * width + i);
        // (a_i, b_i, a_i+1, b_i+1), (a_i+2, b_i+2, a_i+3, b_i+3), likewise c and d.
        const float32x4_t ab[2] = {vzip1q_f32(a, b), vzip2q_f32(a, b)}, cd[2] = {vzip1q_f32(c, d), vzip2q_f32(c, d)};
        for (int h = 0; h < 2; h++) {
            const float64x2_t e0 = vcvt_f64_f32(vget_low_f32(ab[h])), e1 = vcvt_high_f64_f32(ab[h]);
            const float64x2_t f0 = vcvt_f64_f32(vget_low_f32(cd[h])), f1 = vcvt_high_f64_f32(cd[h]);
            s01 = vaddq_f64(s01, vmulq_f64(e0, e0));
            s23 = vaddq_f64(s23, vmulq_f64(f0, f0));
            s01 = vaddq_f64(s01, vmulq_f64(e1, e1));
            s23 = vaddq_f64(s23, vmulq_f64(f1, f1));
        }
    }
    const double sums[4] = {vgetq_lane_f64(s01, 0), vgetq_lane_f64(s01, 1), vgetq_lane_f64(s23, 0), vgetq_lane_f64(s23, 1)};
    for (int v = 0; v < 4; v++) {
        const float scale = 1.0f / sqrtf((float)(sums[v] / (double)width) + eps);
        const float *xv = x + v * width;
        float *yv = y + v * width;
        for (int64_t i = 0; i < width; i += 4)
            vst1q_f32(yv + i, vmulq_f32(vmulq_n_f32(vld1q_f32(xv + i), scale), vld1q_f32(w + i)));
    }
}

void ck_rms_norm_vectors_neon(const float *x, const float *w, float *y, int64_t count, int64_t width, float eps) {
    int64_t v = 0;
    if (width % 4 == 0)
        for (; v + 4 <= count; v += 4) rms_norm4(x + v * width, w, y + v * width, width, eps);
    ck_rms_norm_vectors_ref(x + v * width, w, y + v * width, count - v, width, eps);
}
#endif
