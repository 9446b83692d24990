// Private helper of the float kernels' MXFP8 E4M3 decode (matmul_float_kernel.h).
#ifndef CK_MATMUL_FP8_COMMON_H
#define CK_MATMUL_FP8_COMMON_H

#include <math.h>
#include <stdint.h>

/// Whether x[0..k) times 2^8 is exact (no finite value above FLT_MAX / 2^8). Then an E4M3 value
/// times x equals (value * 2^-8) times (x * 2^8) exactly, so decode can scale the activation once
/// per k instead of every weight register, and every fma still rounds the reference's product.
static inline int ck_fp8_activation_scales_exactly(const float *x, int64_t k) {
    for (int64_t i = 0; i < k; i++)
        if (fabsf(x[i]) > 0x1.fffffep+119f && !isinf(x[i])) return 0;
    return 1;
}

#endif
