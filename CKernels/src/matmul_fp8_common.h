// Private helpers of the float kernels' MXFP8 decode (matmul_float_kernel.h).
#ifndef CK_MATMUL_FP8_COMMON_H
#define CK_MATMUL_FP8_COMMON_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "ck_matmul.h"

/// The largest finite |x[i]| over x[0..k) (0 when none; infinities and NaN left out).
static inline float ck_finite_amax(const float *x, int64_t k) {
    float amax = 0.0f;
    for (int64_t i = 0; i < k; i++) {
        const float a = fabsf(x[i]);
        if (a > amax && !isinf(a)) amax = a;
    }
    return amax;
}

/// How far the E4M3 decode may move its weights' scale into the activations x[0..k): 120 when
/// every finite |x| is at most FLT_MAX / 2^120 (just under 256), 8 when at most FLT_MAX / 2^8,
/// else 0. Then an E4M3 value times x equals (value * 2^-shift) times (x * 2^shift) exactly (the
/// scaled activation stays finite, and infinities stay infinite), so decode can scale the
/// activation once per k instead of every weight register, and every fma still rounds the
/// reference's product. The 2^-120 form is the cheapest to decode (matmul_float_kernel.h).
static inline int ck_fp8_activation_shift(const float *x, int64_t k) {
    const float amax = ck_finite_amax(x, k);
    return amax <= 0x1.fffffep+7f ? 120 : amax <= 0x1.fffffep+119f ? 8 : 0;
}

/// Whether every finite activation x[0..k) is at most FLT_MAX / 2^112 (just under 2^16), so an
/// E5M2 value times x equals (value * 2^-112) times (x * 2^112) exactly (infinities stay
/// infinite): the scaling the 2^-112 decodes (AVX-512's GFNI, AVX2's four codes a dword) move onto
/// the activation.
static inline int ck_e5m2_activation_scalable(const float *x, int64_t k) {
    return ck_finite_amax(x, k) <= 0x1.fffffep+15f;
}

/// E5M2's flags for block b of the band holding row r (mw: [band][block][4], a byte per 16-row
/// group, nonzero where the repack found an infinity or NaN code in that group's block), as one
/// word: nonzero when the band's block holds any.
static inline uint32_t ck_e5m2_band_flags(const ck_weights *w, int64_t nb, int64_t r, int64_t b) {
    uint32_t flags;
    memcpy(&flags, (const uint8_t *)w->mw + ck_float_scale_index(nb, r, b) / CK_R, sizeof flags);
    return flags;
}

#endif
