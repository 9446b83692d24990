// The AVX-512 intrinsics for a second, emulated compilation (CK_AVX512_EMULATED): SIMDe's
// portable implementations under the native names, plus the few this SIMDe release (Debian's
// libsimde-dev 0.7.4) lacks or rounds differently (its portable FMA rounds twice), written here
// from the instructions' definitions. Only the AVX/AVX2/FMA/AVX-512 F/BW/VL/VNNI and GFNI aliases are
// enabled: the compiler's own SSE headers already define the BF16 vector types SIMDe's blanket
// alias switch would redefine.
#ifndef CK_AVX512_SIMDE_H
#define CK_AVX512_SIMDE_H

// SIMDe returns 512-bit vectors from inline functions compiled without AVX-512: no ABI crosses a
// library boundary here, so the compiler's ABI note does not apply.
#pragma clang diagnostic ignored "-Wpsabi"
#define SIMDE_X86_AVX_ENABLE_NATIVE_ALIASES
#define SIMDE_X86_AVX2_ENABLE_NATIVE_ALIASES
#define SIMDE_X86_FMA_ENABLE_NATIVE_ALIASES
#define SIMDE_X86_AVX512F_ENABLE_NATIVE_ALIASES
#define SIMDE_X86_AVX512BW_ENABLE_NATIVE_ALIASES
#define SIMDE_X86_AVX512VL_ENABLE_NATIVE_ALIASES
#define SIMDE_X86_AVX512VNNI_ENABLE_NATIVE_ALIASES
#define SIMDE_X86_GFNI_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>
#include <simde/x86/gfni.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "ck_convert.h"

// SIMDe aliases the vector types only under its blanket switch; the ones the kernel names:
typedef simde__m512 __m512;
typedef simde__m512i __m512i;
typedef simde__m512d __m512d;
typedef simde__m256i __m256i;
typedef simde__mmask16 __mmask16;
typedef simde__mmask64 __mmask64;
// This release aliases _mm512_madd_epi16 with the masked form's four arguments.
#undef _mm512_madd_epi16
#define _mm512_madd_epi16(a, b) simde_mm512_madd_epi16(a, b)
#ifndef _CMP_GT_OQ
#define _CMP_GT_OQ SIMDE_CMP_GT_OQ
#endif

#define EMU static inline

/// vmaxps across 16 lanes (inputs here are absolute values, never NaN).
EMU float emu_mm512_reduce_max_ps(__m512 v) {
    float f[16];
    memcpy(f, &v, 64);
    float m = f[0];
    for (int i = 1; i < 16; i++) m = f[i] > m ? f[i] : m;
    return m;
}

/// vcvtps2dq: round under the current mode (nearest even); NaN and out of range -> INT32_MIN.
EMU __m512i emu_mm512_cvtps_epi32(__m512 v) {
    float f[16];
    int32_t r[16];
    memcpy(f, &v, 64);
    for (int i = 0; i < 16; i++) {
        const float x = nearbyintf(f[i]);
        r[i] = x >= -2147483648.0f && x < 2147483648.0f ? (int32_t)x : INT32_MIN;
    }
    __m512i out;
    memcpy(&out, r, 64);
    return out;
}

/// vcvtdq2ps: int32 -> fp32 under the current mode (nearest even), as a C conversion.
EMU __m512 emu_mm512_cvtepi32_ps(__m512i v) {
    int32_t s[16];
    float f[16];
    memcpy(s, &v, 64);
    for (int i = 0; i < 16; i++) f[i] = (float)s[i];
    __m512 out;
    memcpy(&out, f, 64);
    return out;
}

/// Wrapping sum of 16 int32 lanes.
EMU int emu_mm512_reduce_add_epi32(__m512i v) {
    uint32_t s[16], t = 0;
    memcpy(s, &v, 64);
    for (int i = 0; i < 16; i++) t += s[i];
    return (int)t;
}

/// vcvtph2ps: 16 fp16 -> fp32 (exact).
EMU __m512 emu_mm512_cvtph_ps(__m256i h) {
    uint16_t s[16];
    float f[16];
    memcpy(s, &h, 32);
    for (int i = 0; i < 16; i++) f[i] = ck_fp16_to_fp32(s[i]);
    __m512 out;
    memcpy(&out, f, 64);
    return out;
}

/// vpmovzxwd: 16 uint16 -> int32, zero-extended (missing from this SIMDe release).
EMU __m512i emu_mm512_cvtepu16_epi32(__m256i h) {
    uint16_t s[16];
    int32_t d[16];
    memcpy(s, &h, 32);
    for (int i = 0; i < 16; i++) d[i] = s[i];
    __m512i out;
    memcpy(&out, d, 64);
    return out;
}

/// vpmovsxbd: 16 int8 -> int32, sign-extended (missing from this SIMDe release).
EMU __m512i emu_mm512_cvtepi8_epi32(__m128i c) {
    int8_t s[16];
    int32_t d[16];
    memcpy(s, &c, 16);
    for (int i = 0; i < 16; i++) d[i] = s[i];
    __m512i out;
    memcpy(&out, d, 64);
    return out;
}

/// vfmadd: a * b + c rounded once. (SIMDe's portable version rounds twice: a different result.)
EMU __m512 emu_mm512_fmadd_ps(__m512 a, __m512 b, __m512 c) {
    float x[16], y[16], z[16];
    memcpy(x, &a, 64);
    memcpy(y, &b, 64);
    memcpy(z, &c, 64);
    for (int i = 0; i < 16; i++) x[i] = fmaf(x[i], y[i], z[i]);
    __m512 out;
    memcpy(&out, x, 64);
    return out;
}

/// Masked load: lanes outside the mask are zero and their memory is not touched.
EMU __m512 emu_mm512_maskz_loadu_ps(__mmask16 k, const float *p) {
    float f[16];
    for (int i = 0; i < 16; i++) f[i] = (k >> i) & 1 ? p[i] : 0.0f;
    __m512 out;
    memcpy(&out, f, 64);
    return out;
}

/// Masked store: only the lanes in the mask are written.
EMU void emu_mm512_mask_storeu_ps(float *p, __mmask16 k, __m512 v) {
    float f[16];
    memcpy(f, &v, 64);
    for (int i = 0; i < 16; i++)
        if ((k >> i) & 1) p[i] = f[i];
}

// SIMDe has vshuff32x4 but not its native name.
#define _mm512_shuffle_f32x4 simde_mm512_shuffle_f32x4

#undef _mm512_fmadd_ps
#define _mm512_fmadd_ps emu_mm512_fmadd_ps
#define _mm512_reduce_max_ps emu_mm512_reduce_max_ps
#define _mm512_cvtps_epi32 emu_mm512_cvtps_epi32
#define _mm512_cvtepi32_ps emu_mm512_cvtepi32_ps
#define _mm512_reduce_add_epi32 emu_mm512_reduce_add_epi32
#define _mm512_cvtph_ps emu_mm512_cvtph_ps
#define _mm512_cvtepu16_epi32 emu_mm512_cvtepu16_epi32
#define _mm512_cvtepi8_epi32 emu_mm512_cvtepi8_epi32
#define _mm512_maskz_loadu_ps emu_mm512_maskz_loadu_ps
#define _mm512_mask_storeu_ps emu_mm512_mask_storeu_ps

#endif
