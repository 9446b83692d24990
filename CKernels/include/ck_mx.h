// OCP Microscaling (MX v1.0) formats: 32 elements sharing one ue8m0 power-of-two scale.
//
// Scale X = 2^(e-127) for e in 0..254; e = 0xFF is NaN and makes the whole block NaN.
// Elements (bias, max normal, specials): E4M3 (7, 448, NaN = S.1111.111, no inf),
// E5M2 (15, 57344, IEEE inf and NaN), E2M1 (1, 6, none), INT8 (two's complement times 2^-6).
// Quantization follows the reference implementation (microsoft/microxcaling `_quantize_mx`):
// shared exponent = floor(log2(amax)) - emax_elem, clamped below at -127 (above 127 -> NaN scale),
// elements rounded to nearest even and saturated to the format's max normal.
#ifndef CK_MX_H
#define CK_MX_H

#include <stdint.h>

/// Elements per MX block.
#define CK_MX_BLOCK 32
/// ue8m0 NaN scale code.
#define CK_E8M0_NAN 0xFF

/// MXINT8: value = 2^(e-127) * qs[i] * 2^-6, qs in -127..127 (the quantizer never emits -128).
typedef struct { uint8_t e; int8_t qs[32]; } ck_block_mxint8;
/// MXFP8 (E4M3 or E5M2 codes, chosen by the weight format).
typedef struct { uint8_t e; uint8_t qs[32]; } ck_block_mxfp8;
/// MXFP4: E2M1 codes, two per byte in ggml's order (low nibble = element j, high = j + 16).
typedef struct { uint8_t e; uint8_t qs[16]; } ck_block_mxfp4;

_Static_assert(sizeof(ck_block_mxint8) == 33, "mxint8 block size");
_Static_assert(sizeof(ck_block_mxfp8) == 33, "mxfp8 block size");
_Static_assert(sizeof(ck_block_mxfp4) == 17, "mxfp4 block size");

/// Element encodings of the MX formats.
typedef enum { CK_MX_INT8 = 0, CK_MX_E4M3 = 1, CK_MX_E5M2 = 2, CK_MX_E2M1 = 3 } ck_mx_elem;

/// ue8m0 -> fp32: 2^(e-127), NaN for 0xFF. Built from the bits (e << 23 is the normal 2^(e-127)
/// for e >= 1; e = 0 is the subnormal 2^-127, bit 22), inline because the attention and matmul
/// loops ask once per 32-element block.
static inline float ck_e8m0_to_fp32(uint8_t e) {
    const uint32_t bits = e == CK_E8M0_NAN ? 0x7FC00000u : e ? (uint32_t)e << 23 : 0x00400000u;
    float f;
    __builtin_memcpy(&f, &bits, sizeof f);
    return f;
}
/// Element code -> its value without the block scale (INT8 includes the 2^-6). Exact.
/// E5M2 infinities and NaNs and E4M3 NaN decode to the IEEE values.
float ck_mx_elem_decode(ck_mx_elem kind, uint8_t code);
/// fp32 -> element code: round to nearest even, saturate finite values to +-max normal, NaN -> a
/// NaN code (E4M3/E5M2) or 0 (E2M1/INT8, which have none). Inputs are already divided by X.
uint8_t ck_mx_elem_encode(ck_mx_elem kind, float v);
/// The largest power of two of the element format's range (emax_elem: INT8 0, E4M3 8, E5M2 15, E2M1 2).
int ck_mx_elem_emax(ck_mx_elem kind);

/// fp32 -> MX blocks, `n` a multiple of 32. A block holding a NaN or infinity gets the NaN scale.
void ck_quantize_row_mxint8(const float *x, ck_block_mxint8 *y, int64_t n);
void ck_quantize_row_mxfp8_e4m3(const float *x, ck_block_mxfp8 *y, int64_t n);
void ck_quantize_row_mxfp8_e5m2(const float *x, ck_block_mxfp8 *y, int64_t n);
void ck_quantize_row_mxfp4(const float *x, ck_block_mxfp4 *y, int64_t n);

/// MX blocks -> fp32: y = X * element; computed as one fp32 multiply, so exact unless it underflows.
void ck_dequantize_row_mxint8(const ck_block_mxint8 *x, float *y, int64_t n);
void ck_dequantize_row_mxfp8_e4m3(const ck_block_mxfp8 *x, float *y, int64_t n);
void ck_dequantize_row_mxfp8_e5m2(const ck_block_mxfp8 *x, float *y, int64_t n);
void ck_dequantize_row_mxfp4(const ck_block_mxfp4 *x, float *y, int64_t n);

#endif
