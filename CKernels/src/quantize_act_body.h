// Private to quantize_act.c (the reference) and matmul_avx2.c (its AVX2 twin): the one body of
// the activation quantizer, its schemes and their fp32 operations (quantize_act.c's header
// comment), over the primitives the including file defines with the same results:
//   amax_of(x, n)                        max |x[i]| over n floats (n a multiple of 32)
//   quantize32(x, mul, q, &s0, &s1)      q = clamp(rint(x * mul), +-127), the sums of both halves
//   fp16_round(f)                        fp32 -> fp16 -> fp32, to nearest even
// and QUANTIZE_ACT_NAME, QUANTIZE_ACT_ATTR: the function's name and target attribute.
#ifndef CK_QUANTIZE_ACT_BODY_H
#define CK_QUANTIZE_ACT_BODY_H

#include <math.h>
#include "ck_matmul.h"

/// 127/amax, or 0 for an all-zero group; also 0 when amax is so small (< ~3.7e-37) that 127/amax
/// overflows, so such a group quantizes to zeros instead of infinities.
static inline float inverse_step(float amax) {
    const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
    return id == INFINITY ? 0.0f : id;
}

QUANTIZE_ACT_ATTR void QUANTIZE_ACT_NAME(const ck_act *a, int64_t m0, int64_t m1) {
    const int64_t nb = a->k / 32;
    for (int64_t m = m0; m < m1; m++) {
        float mul = 0.0f, da = 0.0f;   // Q8_K: the 256-group's, set at its first block
        for (int64_t b = 0; b < nb; b++) {
            const float *x = a->x + m * a->k + b * 32;
            int8_t *q = a->q + m * a->k + b * 32;
            float *meta = a->meta + (m * nb + b) * CK_ACT_META;
            float sum_scaled;          // meta[1] before the common store
            int s0, s1;
            switch (a->format) {
            case CK_ACT_Q8_K:
                if (b % 8 == 0) {
                    mul = inverse_step(amax_of(x, 256));
                    da = mul != 0.0f ? 1.0f / mul : 0.0f;
                }
                quantize32(x, mul, q, &s0, &s1);
                sum_scaled = da * (float)(s0 + s1);
                break;
            case CK_ACT_Q8_0:
            case CK_ACT_Q8_1: {
                const float amax = amax_of(x, 32), d = amax / 127.0f;
                mul = inverse_step(amax);
                da = fp16_round(d);
                quantize32(x, mul, q, &s0, &s1);
                sum_scaled = a->format == CK_ACT_Q8_1 ? fp16_round(d * (float)(s0 + s1)) : da * (float)(s0 + s1);
                break;
            }
            default: {   // CK_ACT_Q8_32
                da = amax_of(x, 32) / 127.0f;
                mul = da != 0.0f ? 1.0f / da : 0.0f;
                quantize32(x, mul, q, &s0, &s1);
                sum_scaled = da * (float)(s0 + s1);
                break;
            }
            }
            meta[0] = da;
            meta[1] = sum_scaled;
            a->sums[m * nb + b] = (int16_t)(s0 + s1);
            a->half_sums[2 * (m * nb + b)] = (int16_t)s0;
            a->half_sums[2 * (m * nb + b) + 1] = (int16_t)s1;
        }
    }
}

#endif
