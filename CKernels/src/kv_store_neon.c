// ARM64 (NEON, every ARM path) KV cache row stores, the reference's bytes (kv_format.c,
// quantize_mx.c):
//   fp16   FCVTN rounds to nearest even, overflows to infinity, keeps subnormals (FPCR.FZ16 and
//          FZ clear) and quiets a NaN keeping its top payload bits: ck_fp32_to_fp16's bits.
//   q8_0   per block of 32: amax by FMAXNM (a NaN is skipped, as fmaxf skips it), d = amax / 127
//          and 1 / d as scalars, codes FRINTA(x * (1 / d)) (roundf's halves away from zero),
//          FCVTZS to int32, narrowed (a product that is not finite, from an infinite or NaN
//          input or an overflowing 1 / d, gives -128 as in the reference).
//   MXFP8  per block: the shared exponent from the block maximum (FMAX keeps NaN, so an infinite
//          or NaN element gives the NaN scale and zero codes), elements scaled by 2^-E (exact
//          where ldexpf is exact, one rounding where the result is subnormal, as ldexpf), then
//          each E4M3 code without branches: with a = min(|v|, 448) and e = max(exponent of a, -6)
//          (the reference's binade, clamped at the subnormal one), m = FRINTN(a * 2^(3 - e)) is
//          the rounded significand (0..16, exact scaling) and the code is 8 (e + 6) + m: that is
//          expField << 3 | mantissa for normal results, the subnormal codes for e = -6 and m < 8,
//          and the next binade's first code for m = 16; the sign bit of v on top.
// Tails (fp16 row not a multiple of 4 long) run the reference's conversion.
#pragma STDC FP_CONTRACT OFF
#include "ck_ops.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#include <float.h>
#include <string.h>
#include "ck_convert.h"
#include "ck_mx.h"
#include "kernels_neon.h"

void ck_kv_store_f16_neon(const float *x, void *row, int64_t n) {
    ck_half *h = row;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const float16x8_t v = vcvt_high_f16_f32(vcvt_f16_f32(vld1q_f32(x + i)), vld1q_f32(x + i + 4));
        vst1q_u16(h + i, vreinterpretq_u16_f16(v));
    }
    for (; i + 4 <= n; i += 4) vst1_u16(h + i, vreinterpret_u16_f16(vcvt_f16_f32(vld1q_f32(x + i))));
    for (; i < n; i++) h[i] = ck_fp32_to_fp16(x[i]);
}

/// roundf of each lane as int32 (FRINTA, FCVTZS), -128 where the product is not finite (FACGT
/// against infinity; FCVTZS would give 0 for NaN and saturate an infinity).
static inline int32x4_t q8_codes(float32x4_t s) {
    return vbslq_s32(vcaltq_f32(s, vdupq_n_f32(__builtin_inff())), vcvtq_s32_f32(vrndaq_f32(s)), vdupq_n_s32(-128));
}

void ck_kv_store_q8_0_neon(const float *x, void *row, int64_t n) {
    ck_block_q8_0 *y = row;
    for (int64_t b = 0; b < n / CK_QK32; b++, x += CK_QK32) {
        float32x4_t v[8], mx = vdupq_n_f32(0.0f);
        for (int c = 0; c < 8; c++) {
            v[c] = vld1q_f32(x + 4 * c);
            mx = vmaxnmq_f32(mx, vabsq_f32(v[c]));
        }
        const float amax = vmaxnmvq_f32(mx), d = amax / 127.0f, id = d != 0 ? 1.0f / d : 0.0f;
        y[b].d = ck_fp32_to_fp16(d);
        int16x8_t q16[4];
        for (int c = 0; c < 4; c++) {
            q16[c] = vcombine_s16(vmovn_s32(q8_codes(vmulq_n_f32(v[2 * c], id))), vmovn_s32(q8_codes(vmulq_n_f32(v[2 * c + 1], id))));
        }
        vst1q_s8(y[b].qs, vcombine_s8(vmovn_s16(q16[0]), vmovn_s16(q16[1])));
        vst1q_s8(y[b].qs + 16, vcombine_s8(vmovn_s16(q16[2]), vmovn_s16(q16[3])));
    }
}

static inline float float_of(uint32_t u) { float f; memcpy(&f, &u, sizeof f); return f; }
static inline uint32_t bits_of(float f) { uint32_t u; memcpy(&u, &f, sizeof u); return u; }

/// The block's E8M0 scale code (quantize_mx.c's shared_exponent for E4M3: emax 8).
static uint8_t e4m3_block_exponent(const float32x4_t v[8]) {
    float32x4_t mx = vdupq_n_f32(0.0f);
    for (int c = 0; c < 8; c++) mx = vmaxq_f32(mx, vabsq_f32(v[c]));
    float amax = vmaxvq_f32(mx);
    if (!(amax <= FLT_MAX)) return CK_E8M0_NAN;   // infinite or NaN element
    if (amax < FLT_MIN) amax = FLT_MIN;
    int E = (int)(bits_of(amax) >> 23) - 127 - 8;   // floor(log2(amax)) - emax (amax normal here)
    if (E < -127) E = -127;
    return (uint8_t)(E + 127);
}

/// Four E4M3 codes of v (already scaled by 2^-E), as 32-bit lanes.
static inline uint32x4_t e4m3_codes(float32x4_t v) {
    const float32x4_t a = vminq_f32(vabsq_f32(v), vdupq_n_f32(448.0f));
    const int32x4_t e = vmaxq_s32(vsubq_s32(vreinterpretq_s32_u32(vshrq_n_u32(vreinterpretq_u32_f32(a), 23)),
                                            vdupq_n_s32(127)), vdupq_n_s32(-6));
    // 2^(3 - e): biased exponent 130 - e (124 .. 136).
    const float32x4_t up = vreinterpretq_f32_s32(vshlq_n_s32(vsubq_s32(vdupq_n_s32(130), e), 23));
    const int32x4_t m = vcvtq_s32_f32(vrndnq_f32(vmulq_f32(a, up)));
    const uint32x4_t code = vreinterpretq_u32_s32(vaddq_s32(vshlq_n_s32(vaddq_s32(e, vdupq_n_s32(6)), 3), m));
    const uint32x4_t sign = vshlq_n_u32(vshrq_n_u32(vreinterpretq_u32_f32(v), 31), 7);
    return vorrq_u32(code, sign);
}

void ck_kv_store_mxfp8_e4m3_neon(const float *x, void *row, int64_t n) {
    ck_block_mxfp8 *y = row;
    for (int64_t b = 0; b < n / CK_MX_BLOCK; b++, x += CK_MX_BLOCK) {
        float32x4_t v[8];
        for (int c = 0; c < 8; c++) v[c] = vld1q_f32(x + 4 * c);
        const uint8_t e = e4m3_block_exponent(v);
        y[b].e = e;
        if (e == CK_E8M0_NAN) { memset(y[b].qs, 0, sizeof y[b].qs); continue; }
        const float32x4_t s = vdupq_n_f32(float_of((uint32_t)(254 - e) << 23));   // 2^(127 - e), normal
        uint16x8_t c16[4];
        for (int c = 0; c < 4; c++)
            c16[c] = vcombine_u16(vmovn_u32(e4m3_codes(vmulq_f32(v[2 * c], s))), vmovn_u32(e4m3_codes(vmulq_f32(v[2 * c + 1], s))));
        vst1q_u8(y[b].qs, vcombine_u8(vmovn_u16(c16[0]), vmovn_u16(c16[1])));
        vst1q_u8(y[b].qs + 16, vcombine_u8(vmovn_u16(c16[2]), vmovn_u16(c16[3])));
    }
}
#endif
