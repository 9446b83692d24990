// Exact scalar conversions between fp32, IEEE binary16 and bfloat16, by bit manipulation so the
// result does not depend on the compiler, the CPU (F16C) or the FTZ/DAZ state.
#pragma STDC FP_CONTRACT OFF
#include <string.h>
#include "ck_convert.h"

static inline uint32_t bits_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float float_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

float ck_fp16_to_fp32(ck_half h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1F;
    uint32_t mant = h & 0x3FF;
    if (exp == 0x1F) {                       // inf / NaN: keep the payload
        return float_of(sign | 0x7F800000u | (mant << 13));
    }
    if (exp == 0) {
        if (mant == 0) return float_of(sign);
        // Subnormal: value = mant * 2^-24, exactly representable in fp32.
        float v = (float)mant * 0x1p-24f;
        return float_of(sign | bits_of(v));
    }
    return float_of(sign | ((exp + 112) << 23) | (mant << 13));
}

ck_half ck_fp32_to_fp16(float f) {
    uint32_t u = bits_of(f);
    uint32_t sign = (u >> 16) & 0x8000;
    uint32_t abs = u & 0x7FFFFFFF;
    if (abs > 0x7F800000u) return (ck_half)(sign | 0x7E00 | ((abs >> 13) & 0x3FF)); // NaN, quiet
    if (abs >= 0x477FF000u) return (ck_half)(sign | 0x7C00);   // rounds to >= 65520: infinity
    if (abs < 0x38800000u) {
        // Result is subnormal or zero: add 0.5 (as fp32) so the FPU rounds to nearest even at
        // the binary16 subnormal spacing 2^-24, then read the low bits.
        float v = float_of(abs) + 0.5f;
        return (ck_half)(sign | (bits_of(v) - 0x3F000000u));
    }
    // Normal: rebias the exponent, round the 13 dropped bits to nearest even.
    uint32_t odd = (abs >> 13) & 1;
    abs += 0xC8000FFFu + odd;                 // -(112 << 23) + 0xFFF + odd, modulo 2^32
    return (ck_half)(sign | (abs >> 13));
}

float ck_bf16_to_fp32(ck_bf16 h) { return float_of((uint32_t)h << 16); }

ck_bf16 ck_fp32_to_bf16(float f) {
    uint32_t b;
    memcpy(&b, &f, 4);
    if ((b & 0x7FFFFFFFu) > 0x7F800000u) return (ck_bf16)((b >> 16) | 0x40);   // NaN, quiet
    return (ck_bf16)((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}
