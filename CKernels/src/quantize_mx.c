// OCP MX v1.0 element codecs and block quantizers / dequantizers (the reference, scalar).
//
// Every conversion is exact arithmetic on powers of two plus one round-to-nearest-even step
// (nearbyintf under the default rounding mode), so results do not depend on FMA contraction.
#pragma STDC FP_CONTRACT OFF

#include <math.h>
#include <float.h>
#include <string.h>
#include "ck_mx.h"

/// Minifloat geometry: mantissa bits, exponent bias, max normal, and NaN / inf handling.
typedef struct { int mbits, bias; float maxnorm; } minifloat;

static minifloat geometry(ck_mx_elem kind) {
    switch (kind) {
    case CK_MX_E4M3: return (minifloat){3, 7, 448.0f};
    case CK_MX_E5M2: return (minifloat){2, 15, 57344.0f};
    default: return (minifloat){1, 1, 6.0f};     // E2M1
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
    const int sbit = kind == CK_MX_E2M1 ? 3 : 7;
    const minifloat g = geometry(kind);
    const int sign = (code >> sbit) & 1;
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

uint8_t ck_mx_elem_encode(ck_mx_elem kind, float v) {
    if (kind == CK_MX_INT8) {
        if (isnan(v)) return 0;
        float q = nearbyintf(ldexpf(v, 6));
        if (q > 127.0f) q = 127.0f;
        if (q < -127.0f) q = -127.0f;
        return (uint8_t)(int8_t)q;
    }
    const int ebits = kind == CK_MX_E4M3 ? 4 : kind == CK_MX_E5M2 ? 5 : 2;
    const int sbit = kind == CK_MX_E2M1 ? 3 : 7;
    const minifloat g = geometry(kind);
    const uint8_t sign = signbit(v) ? (uint8_t)(1u << sbit) : 0;
    if (isnan(v)) return kind == CK_MX_E4M3 ? 0x7F : kind == CK_MX_E5M2 ? 0x7E : 0;
    float a = fabsf(v);
    if (isinf(a) && kind == CK_MX_E5M2) return sign | 0x7C;
    const int emin = 1 - g.bias;
    if (a > g.maxnorm) a = g.maxnorm;
    if (a == 0.0f) return sign;
    int e;
    frexpf(a, &e);
    e -= 1;                                    // floor(log2(a))
    if (e < emin) e = emin;
    // Quantum at this binade is 2^(e - mbits); a / quantum is exact (power-of-two scaling).
    float r = ldexpf(nearbyintf(ldexpf(a, g.mbits - e)), e - g.mbits);
    if (r > g.maxnorm) r = g.maxnorm;          // rounding up past the top binade saturates
    if (r == 0.0f) return sign;
    frexpf(r, &e);
    e -= 1;
    int expField, mant;
    if (e < emin) { expField = 0; mant = (int)ldexpf(r, g.mbits - emin); }
    else { expField = e + g.bias; mant = (int)ldexpf(r, g.mbits - e) - (1 << g.mbits); }
    (void)ebits;
    return sign | (uint8_t)(expField << g.mbits) | (uint8_t)mant;
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
    int e;
    frexpf(amax, &e);
    int E = (e - 1) - ck_mx_elem_emax(kind);
    if (E > 127) return CK_E8M0_NAN;
    if (E < -127) E = -127;
    return (uint8_t)(E + 127);
}

/// Quantizes one block: 32 element codes (unpacked) and the scale code.
static uint8_t quantize_block(const float *x, ck_mx_elem kind, uint8_t codes[32]) {
    const uint8_t e = shared_exponent(x, kind);
    if (e == CK_E8M0_NAN) { memset(codes, 0, 32); return e; }
    for (int i = 0; i < CK_MX_BLOCK; i++) codes[i] = ck_mx_elem_encode(kind, ldexpf(x[i], 127 - (int)e));
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
