// Private: the canonical exp (exp_scalar.h) on four lanes for the ARM64 kernels (SwiGLU in
// rows_neon.c, the split-K softmax in attention_split_neon.c), so they give the reference's and
// the x86 paths' bits.
#ifndef CK_EXP_NEON_H
#define CK_EXP_NEON_H

#include <arm_neon.h>

/// e^x, 4 lanes: ck_exp_scalar's steps lane for lane. The clamps are its selects (x > -87 ? x :
/// -87, then x < 88 ? x : 88: a NaN becomes -87, as MAXPS / MINPS make it on x86; FMAXNM would
/// keep a signalling NaN), FRINTN rounds to nearest even as rintf, and its fmaf(-n, c, x) are
/// FMLS (x - n*c, one rounding), its fmaf(p, r, c) FMLA. 2 compares, 2 selects, 1 FRINTN,
/// 9 fused or plain multiply-adds, 1 FCVTZS, 2 integer ops, 1 multiply, 1 select per 4 lanes.
static inline __attribute__((always_inline)) float32x4_t ck_exp_neon(float32x4_t x) {
    const float32x4_t lo = vdupq_n_f32(-87.0f), hi = vdupq_n_f32(88.0f);
    const uint32x4_t overflow = vcgtq_f32(x, hi);
    x = vbslq_f32(vcgtq_f32(x, lo), x, lo);
    x = vbslq_f32(vcltq_f32(x, hi), x, hi);
    const float32x4_t n = vrndnq_f32(vmulq_f32(x, vdupq_n_f32(1.44269504088896341f)));
    float32x4_t r = vfmsq_f32(x, n, vdupq_n_f32(0.693359375f));
    r = vfmsq_f32(r, n, vdupq_n_f32(-2.12194440e-4f));
    float32x4_t p = vdupq_n_f32(1.9875691500e-4f);
    p = vfmaq_f32(vdupq_n_f32(1.3981999507e-3f), p, r);
    p = vfmaq_f32(vdupq_n_f32(8.3334519073e-3f), p, r);
    p = vfmaq_f32(vdupq_n_f32(4.1665795894e-2f), p, r);
    p = vfmaq_f32(vdupq_n_f32(1.6666665459e-1f), p, r);
    p = vfmaq_f32(vdupq_n_f32(5.0000001201e-1f), p, r);
    p = vfmaq_f32(vaddq_f32(r, vdupq_n_f32(1.0f)), p, vmulq_f32(r, r));
    const int32x4_t bits = vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23);
    return vbslq_f32(overflow, vdupq_n_f32(__builtin_inff()), vmulq_f32(p, vreinterpretq_f32_s32(bits)));
}

#endif
