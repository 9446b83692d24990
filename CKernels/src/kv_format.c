// KV cache row formats (ck_ops.h): fp16, Q8_0 and MXFP8 E4M3, all per-row so a cache position
// is written once and read by every later query.
#pragma STDC FP_CONTRACT OFF
#include <math.h>
#include "ck_ops.h"
#include "ck_convert.h"
#include "ck_dequant.h"
#include "ck_mx.h"
#include "ck_matmul.h"

int64_t ck_kv_row_bytes(ck_kv_format format, int64_t n) {
    switch (format) {
    case CK_KV_F16: return n * (int64_t)sizeof(ck_half);
    case CK_KV_Q8_0: return n / CK_QK32 * (int64_t)sizeof(ck_block_q8_0);
    case CK_KV_MXFP8_E4M3: return n / CK_MX_BLOCK * (int64_t)sizeof(ck_block_mxfp8);
    }
    return 0;
}

/// A rounded code as the AVX2 store makes it (truncating conversion to int32, then saturating
/// packs): in-range values as they are, > 127 to 127, and NaN, infinities and everything below
/// -128 to -128 (the conversion's integer indefinite). Non-finite products happen when a block's
/// scale underflows (1 / d = inf) or an input is NaN or inf; a plain (int8_t) cast is undefined
/// there and gives other bits on x86-64 and aarch64.
static inline int8_t q8_code(float r) {
    if (r >= -128.0f && r <= 127.0f) return (int8_t)r;
    return r > 127.0f && r < 2147483648.0f ? 127 : -128;
}

void ck_kv_quantize_row_q8_0_ref(const float *x, ck_block_q8_0 *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_QK32; b++, x += CK_QK32) {
        float amax = 0;
        for (int j = 0; j < CK_QK32; j++) amax = fmaxf(amax, fabsf(x[j]));
        const float d = amax / 127.0f, id = d != 0 ? 1.0f / d : 0.0f;
        y[b].d = ck_fp32_to_fp16(d);
        for (int j = 0; j < CK_QK32; j++) y[b].qs[j] = q8_code(roundf(x[j] * id));
    }
}

/// E4M3 code -> fp32 through its fp16 bit pattern: sign and the 7 exponent/mantissa bits
/// shifted into place give a binary16 equal to the E4M3 value times 2^-8 (subnormals included),
/// so one exact conversion and a power-of-two scale replace the generic decoder. Code S.1111.111
/// is NaN.
static inline float e4m3_to_fp32(uint8_t code) {
    if ((code & 0x7F) == 0x7F) return NAN;
    return ck_fp16_to_fp32((ck_half)(((code & 0x80) << 8) | ((code & 0x7F) << 7))) * 256.0f;
}

void ck_kv_load_row(ck_kv_format format, const void *row, float *y, int64_t n) {
    switch (format) {
    case CK_KV_F16: ck_dequantize_row_f16(row, y, n); break;
    case CK_KV_Q8_0: ck_dequantize_row_q8_0(row, y, n); break;
    case CK_KV_MXFP8_E4M3: {
        const ck_block_mxfp8 *x = row;
        for (int64_t b = 0; b < n / CK_MX_BLOCK; b++, y += CK_MX_BLOCK) {
            const float s = ck_e8m0_to_fp32(x[b].e);
            for (int i = 0; i < CK_MX_BLOCK; i++) y[i] = s * e4m3_to_fp32(x[b].qs[i]);
        }
        break;
    }
    }
}

void ck_kv_store_f16_ref(const float *x, void *row, int64_t n) {
    ck_half *h = row;
    for (int64_t i = 0; i < n; i++) h[i] = ck_fp32_to_fp16(x[i]);
}

#if defined(__x86_64__)
void ck_kv_store_f16_avx2(const float *x, void *row, int64_t n) { ck_fp32_to_fp16_row_avx2(x, row, n); }
#endif
void ck_kv_store_q8_0_ref(const float *x, void *row, int64_t n) { ck_kv_quantize_row_q8_0_ref(x, row, n); }
#if defined(__x86_64__)
void ck_kv_store_q8_0_avx2(const float *x, void *row, int64_t n) { ck_kv_quantize_row_q8_0_avx2(x, row, n); }
#endif
void ck_kv_store_mxfp8_e4m3(const float *x, void *row, int64_t n) { ck_quantize_row_mxfp8_e4m3(x, row, n); }

void ck_kv_store_row(ck_kv_format format, const float *x, void *row, int64_t n) {
    ck_kernels(ck_kernel_path_get())->kv_store[format](x, row, n);
}
