// Activation quantization (reference): fp32 rows -> int8 blocks of 32 with a scale da and the
// block sums premultiplied by da (ck_act in ck_matmul.h). One quantization serves every matmul
// that reads the same input with the same scheme (Q/K/V, gate/up).
//
// Schemes (ck_act_format): Q8_32 is ours (MX formats); Q8_0, Q8_1 and Q8_K give the int8 values
// and scales llama.cpp's x86 build gives its activations for the GGUF formats, so the integer
// dots equal llama.cpp's. Per 32-block the output is meta = {da, da*S, da*S_lo, da*S_hi} with S
// the int sum of the q's (S_lo over elements 0..15, S_hi over 16..31; Q6_K's scales cover 16
// elements); Q8_1 replaces da*S by fp16(d32*S), d32 the unrounded fp32 scale, as its s field.
// Rounding is to nearest even throughout; |q| <= 127 since |x| <= amax.
#pragma STDC FP_CONTRACT OFF

#include <math.h>
#include "ck_matmul.h"
#include "ck_convert.h"

/// 127/amax, or 0 for an all-zero group; also 0 when amax is so small (< ~3.7e-37) that 127/amax
/// overflows, so such a group quantizes to zeros instead of infinities.
static float inverse_step(float amax) {
    const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
    return id == INFINITY ? 0.0f : id;
}

/// q[i] = clamp(rint(x[i] * mul), +-127) for one 32-block; returns the sums of both halves.
static void quantize32(const float *x, float mul, int8_t *q, int *s0, int *s1) {
    *s0 = 0; *s1 = 0;
    for (int i = 0; i < 32; i++) {
        float v = nearbyintf(x[i] * mul);
        v = fminf(127.0f, fmaxf(-127.0f, v));
        q[i] = (int8_t)v;
        if (i < 16) *s0 += q[i]; else *s1 += q[i];
    }
}

static float amax_of(const float *x, int n) {
    float amax = 0.0f;
    for (int i = 0; i < n; i++) amax = fmaxf(amax, fabsf(x[i]));
    return amax;
}

static float fp16_round(float f) { return ck_fp16_to_fp32(ck_fp32_to_fp16(f)); }

void ck_quantize_act_ref(const ck_act *a, int64_t m0, int64_t m1) {
    const int64_t nb = a->k / 32;
    for (int64_t m = m0; m < m1; m++) {
        float mul = 0.0f, da = 0.0f;   // Q8_K: the 256-group's, set at its first block
        for (int64_t b = 0; b < nb; b++) {
            const float *x = a->x + m * a->k + b * 32;
            int8_t *q = a->q + m * a->k + b * 32;
            float *meta = a->meta + (m * nb + b) * 4;
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
            meta[2] = da * (float)s0;
            meta[3] = da * (float)s1;
            a->sums[m * nb + b] = s0 + s1;
        }
    }
}
