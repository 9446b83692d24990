// Activation quantization (reference): fp32 rows -> int8 blocks of 32 with a scale da and the
// block sums premultiplied by da (ck_act in ck_matmul.h). One quantization serves every matmul
// that reads the same input with the same scheme (Q/K/V, gate/up).
//
// Beside meta, the integer sums of each 32 (sums) and each 16 elements (half_sums), which the
// K-quants' super-block form and the offset-128 formats' signed dots read.
//
// Schemes (ck_act_format): Q8_32 is ours (MX formats); Q8_0, Q8_1 and Q8_K give the int8 values
// and scales llama.cpp's x86 build gives its activations for the GGUF formats, so the integer
// dots equal llama.cpp's. Per 32-block the output is meta = {da, da*S} with S the int sum of the
// q's; Q8_1 replaces da*S by fp16(d32*S), d32 the unrounded fp32 scale, as its s field.
// Rounding is to nearest even throughout; |q| <= 127 since |x| <= amax.
#pragma STDC FP_CONTRACT OFF

#include <math.h>
#include "ck_matmul.h"
#include "ck_convert.h"

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

#define QUANTIZE_ACT_NAME ck_quantize_act_ref
#define QUANTIZE_ACT_ATTR
#include "quantize_act_body.h"
