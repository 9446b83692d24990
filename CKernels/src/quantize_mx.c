// OCP MX v1.0 element codecs and block quantizers / dequantizers (the reference, scalar).
//
// Every conversion is exact arithmetic on powers of two plus one round-to-nearest-even step (an
// fp32 addition under the default rounding mode, or the same rounding done on the fp32 bits), so
// results do not depend on FMA contraction. No libm call per element: the load-time converters
// run these on every weight of a model.
#pragma STDC FP_CONTRACT OFF

#include <math.h>
#include <float.h>
#include <string.h>
#include "ck_mx.h"

/// Minifloat geometry: mantissa bits, exponent bias, sign bit, the code of the largest finite
/// value (encoding saturates there), the code a NaN encodes to, and infinity's magnitude code (-1:
/// the format has none, infinities saturate).
typedef struct { int mbits, bias, sbit; uint32_t maxcode; uint8_t nan_code; int inf_code; } minifloat;

static inline __attribute__((always_inline)) minifloat geometry(ck_mx_elem kind) {
    switch (kind) {
    case CK_MX_E4M3: return (minifloat){3, 7, 7, 0x7E, 0x7F, -1};      // 448; 0x7F is NaN
    case CK_MX_E5M2: return (minifloat){2, 15, 7, 0x7B, 0x7E, 0x7C};   // 57344
    default: return (minifloat){1, 1, 3, 0x7, 0, -1};                 // E2M1: 6
    }
}

int ck_mx_elem_emax(ck_mx_elem kind) {
    switch (kind) {
    case CK_MX_INT8: return 0;
    case CK_MX_E4M3: return 8;
    case CK_MX_E5M2: return 15;
    case CK_MX_E2M1: return 2;
    }
    return 0;
}

float ck_mx_elem_decode(ck_mx_elem kind, uint8_t code) {
    if (kind == CK_MX_INT8) return ldexpf((float)(int8_t)code, -6);
    const int ebits = kind == CK_MX_E4M3 ? 4 : kind == CK_MX_E5M2 ? 5 : 2;
    const minifloat g = geometry(kind);
    const int sign = (code >> g.sbit) & 1;
    const int exp = (code >> g.mbits) & ((1 << ebits) - 1);
    const int mant = code & ((1 << g.mbits) - 1);
    float v;
    if (kind == CK_MX_E4M3 && exp == 15 && mant == 7) return NAN;
    if (kind == CK_MX_E5M2 && exp == 31) {
        if (mant != 0) return NAN;
        return sign ? -INFINITY : INFINITY;
    }
    if (exp == 0) v = ldexpf((float)mant, 1 - g.bias - g.mbits);                  // subnormal
    else v = ldexpf((float)((1 << g.mbits) | mant), exp - g.bias - g.mbits);
    return sign ? -v : v;
}

/// 2^n, exactly, for n in [-149, 127] (subnormal powers below -126).
static inline float pow2f(int n) {
    const uint32_t bits = n >= -126 ? (uint32_t)(n + 127) << 23 : 1u << (n + 149);
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/// floor(log2(a)) for finite a > 0, subnormals included (frexpf's exponent minus 1).
static inline int floor_log2(float a) {
    uint32_t bits;
    memcpy(&bits, &a, 4);
    const int field = (int)(bits >> 23) & 0xFF;
    return field ? field - 127 : (31 - __builtin_clz(bits)) - 149;
}

/// nearbyintf(y) under the default rounding mode (to nearest, ties to even) for |y| < 2^22:
/// adding 1.5 * 2^23 leaves no fraction bits, so the addition itself rounds.
static inline float round_even(float y) {
    return (y + 0x1.8p23f) - 0x1.8p23f;   // not folded: FP_CONTRACT is off and no fast-math
}

/// The code of v's nearest value (ties to the even code) in minifloat `kind` (a constant where
/// this is inlined, so its geometry folds away), saturating at the largest finite value; NaN ->
/// the geometry's NaN code (no sign); infinity -> its infinity code, or saturates. Normal values
/// round on the fp32 bits (adding half a quantum minus one plus the kept mantissa's last bit, so
/// ties go to even, and a carry moves into the exponent as it should); values below the
/// smallest normal are a multiple of the subnormal quantum, rounded by round_even.
static inline __attribute__((always_inline)) uint8_t encode_minifloat(float v, ck_mx_elem kind) {
    const minifloat g = geometry(kind);
    uint32_t u;
    memcpy(&u, &v, 4);
    const uint8_t sign = (u >> 31) ? (uint8_t)(1u << g.sbit) : 0;
    const uint32_t au = u & 0x7FFFFFFFu;
    if (au > 0x7F800000u) return g.nan_code;
    if (au == 0x7F800000u && g.inf_code >= 0) return sign | (uint8_t)g.inf_code;
    float a;
    memcpy(&a, &au, 4);
    if (a < pow2f(1 - g.bias)) return sign | (uint8_t)round_even(a * pow2f(g.bias - 1 + g.mbits));
    const uint32_t r = au + ((1u << (22 - g.mbits)) - 1) + ((au >> (23 - g.mbits)) & 1);
    const uint32_t code = au >= 0x7F800000u ? g.maxcode : (r >> (23 - g.mbits)) - ((uint32_t)(127 - g.bias) << g.mbits);
    return sign | (uint8_t)(code > g.maxcode ? g.maxcode : code);
}

static inline __attribute__((always_inline)) uint8_t encode_int8(float v) {
    if (isnan(v)) return 0;
    float q = v * 64.0f;                    // exact, or infinite
    if (fabsf(q) < 0x1p22f) q = round_even(q);
    if (q > 127.0f) q = 127.0f;
    if (q < -127.0f) q = -127.0f;
    return (uint8_t)(int8_t)q;
}

uint8_t ck_mx_elem_encode(ck_mx_elem kind, float v) {
    switch (kind) {
    case CK_MX_INT8: return encode_int8(v);
    case CK_MX_E4M3: return encode_minifloat(v, CK_MX_E4M3);
    case CK_MX_E5M2: return encode_minifloat(v, CK_MX_E5M2);
    default: return encode_minifloat(v, CK_MX_E2M1);
    }
}

/// Shared scale of one block of 32 per the MX reference: E = floor(log2(amax)) - emax_elem,
/// clamped to >= -127; E > 127, NaN or infinity -> NaN scale. Returns the biased code.
static uint8_t shared_exponent(const float *x, ck_mx_elem kind) {
    float amax = 0.0f;
    for (int i = 0; i < CK_MX_BLOCK; i++) {
        if (!isfinite(x[i])) return CK_E8M0_NAN;
        const float a = fabsf(x[i]);
        if (a > amax) amax = a;
    }
    if (amax < FLT_MIN) amax = FLT_MIN;         // all-zero (or tiny) blocks, as the reference does
    int E = floor_log2(amax) - ck_mx_elem_emax(kind);
    if (E > 127) return CK_E8M0_NAN;
    if (E < -127) E = -127;
    return (uint8_t)(E + 127);
}

/// Quantizes one block: 32 element codes (unpacked) and the scale code.
static uint8_t quantize_block(const float *x, ck_mx_elem kind, uint8_t codes[32]) {
    const uint8_t e = shared_exponent(x, kind);
    if (e == CK_E8M0_NAN) { memset(codes, 0, 32); return e; }
    const float s = pow2f(127 - (int)e);   // x * s rounds once, as ldexpf(x, 127 - e)
    switch (kind) {   // one loop per kind, each encoder inlined
    case CK_MX_INT8: for (int i = 0; i < CK_MX_BLOCK; i++) codes[i] = encode_int8(x[i] * s); break;
    case CK_MX_E4M3: for (int i = 0; i < CK_MX_BLOCK; i++) codes[i] = encode_minifloat(x[i] * s, CK_MX_E4M3); break;
    case CK_MX_E5M2: for (int i = 0; i < CK_MX_BLOCK; i++) codes[i] = encode_minifloat(x[i] * s, CK_MX_E5M2); break;
    default: for (int i = 0; i < CK_MX_BLOCK; i++) codes[i] = encode_minifloat(x[i] * s, CK_MX_E2M1); break;
    }
    return e;
}

void ck_quantize_row_mxint8(const float *x, ck_block_mxint8 *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_MX_BLOCK; b++, x += CK_MX_BLOCK) {
        uint8_t c[32];
        y[b].e = quantize_block(x, CK_MX_INT8, c);
        memcpy(y[b].qs, c, 32);
    }
}

void ck_quantize_row_mxfp8_e4m3(const float *x, ck_block_mxfp8 *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_MX_BLOCK; b++, x += CK_MX_BLOCK) y[b].e = quantize_block(x, CK_MX_E4M3, y[b].qs);
}

void ck_quantize_row_mxfp8_e5m2(const float *x, ck_block_mxfp8 *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_MX_BLOCK; b++, x += CK_MX_BLOCK) y[b].e = quantize_block(x, CK_MX_E5M2, y[b].qs);
}

void ck_quantize_row_mxfp4(const float *x, ck_block_mxfp4 *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_MX_BLOCK; b++, x += CK_MX_BLOCK) {
        uint8_t c[32];
        y[b].e = quantize_block(x, CK_MX_E2M1, c);
        for (int j = 0; j < 16; j++) y[b].qs[j] = (uint8_t)(c[j] | (c[j + 16] << 4));
    }
}

void ck_dequantize_row_mxint8(const ck_block_mxint8 *x, float *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_MX_BLOCK; b++, y += CK_MX_BLOCK) {
        const float s = ck_e8m0_to_fp32(x[b].e);
        for (int i = 0; i < 32; i++) y[i] = s * ck_mx_elem_decode(CK_MX_INT8, (uint8_t)x[b].qs[i]);
    }
}

void ck_dequantize_row_mxfp8_e4m3(const ck_block_mxfp8 *x, float *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_MX_BLOCK; b++, y += CK_MX_BLOCK) {
        const float s = ck_e8m0_to_fp32(x[b].e);
        for (int i = 0; i < 32; i++) y[i] = s * ck_mx_elem_decode(CK_MX_E4M3, x[b].qs[i]);
    }
}

void ck_dequantize_row_mxfp8_e5m2(const ck_block_mxfp8 *x, float *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_MX_BLOCK; b++, y += CK_MX_BLOCK) {
        const float s = ck_e8m0_to_fp32(x[b].e);
        for (int i = 0; i < 32; i++) y[i] = s * ck_mx_elem_decode(CK_MX_E5M2, x[b].qs[i]);
    }
}

void ck_dequantize_row_mxfp4(const ck_block_mxfp4 *x, float *y, int64_t n) {
    for (int64_t b = 0; b < n / CK_MX_BLOCK; b++, y += CK_MX_BLOCK) {
        const float s = ck_e8m0_to_fp32(x[b].e);
        for (int j = 0; j < 16; j++) {
            y[j] = s * ck_mx_elem_decode(CK_MX_E2M1, x[b].qs[j] & 0x0F);
            y[j + 16] = s * ck_mx_elem_decode(CK_MX_E2M1, x[b].qs[j] >> 4);
        }
    }
}
