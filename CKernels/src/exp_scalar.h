// Private: the exp of the reference kernels, one value at a time: ck_exp_avx2's (avx2_exp.h) and
// exp16's (avx512_exp.h) steps for one lane, so the reference and the SIMD paths give the same
// bits (the canonical exp of every kernel that exponentiates).
#ifndef CK_EXP_SCALAR_H
#define CK_EXP_SCALAR_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/// e^x: Cephes' expf polynomial after x = n ln2 + r (ln2 split in two), n rounded to nearest
/// even, each step the vector one's (fmaf where they fuse, the clamps as MAXPS / MINPS order their
/// operands, so NaN becomes -87 as there). About 1 ulp; below -87 clamped, above 88 +inf.
static inline float ck_exp_scalar(float x) {
    const int overflow = x > 88.0f;
    x = x > -87.0f ? x : -87.0f;
    x = x < 88.0f ? x : 88.0f;
    const float n = rintf(x * 1.44269504088896341f);
    float r = fmaf(-n, 0.693359375f, x);
    r = fmaf(-n, -2.12194440e-4f, r);
    float p = 1.9875691500e-4f;
    p = fmaf(p, r, 1.3981999507e-3f);
    p = fmaf(p, r, 8.3334519073e-3f);
    p = fmaf(p, r, 4.1665795894e-2f);
    p = fmaf(p, r, 1.6666665459e-1f);
    p = fmaf(p, r, 5.0000001201e-1f);
    const float r2 = r * r, r1 = r + 1.0f;
    p = fmaf(p, r2, r1);
    const uint32_t bits = (uint32_t)((int32_t)n + 127) << 23;
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return overflow ? __builtin_inff() : p * scale;
}

#endif
