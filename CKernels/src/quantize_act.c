// Activation quantization (reference): fp32 rows -> int8 blocks of 32 with an fp32 scale and
// the block sums premultiplied by the scale (ck_act in ck_matmul.h). One quantization serves
// every integer weight format and every matmul reading the same input (Q/K/V, gate/up).
//
// Per 32-block: da = amax / 127, q = rint(x * (1 / da)) (nearest even; |q| <= 127 since
// x / amax <= 1), meta = {da, da*S, da*S_lo, da*S_hi} with S the int sum of the q's (S_lo over
// elements 0..15, S_hi over 16..31; Q6_K's scales cover 16 elements).
#pragma STDC FP_CONTRACT OFF

#include <math.h>
#include "ck_matmul.h"

void ck_quantize_act_ref(const ck_act *a, int64_t m0, int64_t m1) {
    const int64_t nb = a->k / 32;
    for (int64_t m = m0; m < m1; m++) {
        for (int64_t b = 0; b < nb; b++) {
            const float *x = a->x + m * a->k + b * 32;
            int8_t *q = a->q + m * a->k + b * 32;
            float amax = 0.0f;
            for (int i = 0; i < 32; i++) amax = fmaxf(amax, fabsf(x[i]));
            const float d = amax / 127.0f;
            const float id = d != 0.0f ? 1.0f / d : 0.0f;
            int s0 = 0, s1 = 0;
            for (int i = 0; i < 32; i++) {
                float v = nearbyintf(x[i] * id);
                v = fminf(127.0f, fmaxf(-127.0f, v));
                q[i] = (int8_t)v;
                if (i < 16) s0 += q[i]; else s1 += q[i];
            }
            float *meta = a->meta + (m * nb + b) * 4;
            meta[0] = d;
            meta[1] = d * (float)(s0 + s1);
            meta[2] = d * (float)s0;
            meta[3] = d * (float)s1;
            a->sums[m * nb + b] = s0 + s1;
        }
    }
}
