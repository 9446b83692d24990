// Reference dequantizers: GGUF tensor rows -> fp32.
//
// These are the specification every faster path is checked against and are bit-exact with
// ggml's dequantize_row_* and the `gguf` Python package. `n` is the element count and must be a
// multiple of the type's block size (ck_type_block_size).
#ifndef CK_DEQUANT_H
#define CK_DEQUANT_H

#include <stddef.h>
#include <stdint.h>
#include "ck_blocks.h"

/// Elements per block for `type`, or 0 if the type is not one this library decodes.
int64_t ck_type_block_size(ck_type type);
/// Bytes per block for `type`, or 0 if the type is not one this library decodes.
int64_t ck_type_block_bytes(ck_type type);

void ck_dequantize_row_f32(const float *x, float *y, int64_t n);
void ck_dequantize_row_f16(const ck_half *x, float *y, int64_t n);
void ck_dequantize_row_bf16(const ck_bf16 *x, float *y, int64_t n);
void ck_dequantize_row_q4_0(const ck_block_q4_0 *x, float *y, int64_t n);
void ck_dequantize_row_q4_1(const ck_block_q4_1 *x, float *y, int64_t n);
void ck_dequantize_row_q5_0(const ck_block_q5_0 *x, float *y, int64_t n);
void ck_dequantize_row_q5_1(const ck_block_q5_1 *x, float *y, int64_t n);
void ck_dequantize_row_q8_0(const ck_block_q8_0 *x, float *y, int64_t n);
void ck_dequantize_row_q3_K(const ck_block_q3_K *x, float *y, int64_t n);
void ck_dequantize_row_q4_K(const ck_block_q4_K *x, float *y, int64_t n);
void ck_dequantize_row_q5_K(const ck_block_q5_K *x, float *y, int64_t n);
void ck_dequantize_row_q6_K(const ck_block_q6_K *x, float *y, int64_t n);
void ck_dequantize_row_iq4_nl(const ck_block_iq4_nl *x, float *y, int64_t n);
void ck_dequantize_row_iq4_xs(const ck_block_iq4_xs *x, float *y, int64_t n);

/// Dequantizes `n` elements of any supported type. Returns 0 on success, -1 for an unsupported
/// type or an `n` that is not a whole number of blocks (nothing is written then).
int ck_dequantize_row(ck_type type, const void *x, float *y, int64_t n);

#endif
