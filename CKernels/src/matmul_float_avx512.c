// MXFP8 (E4M3 / E5M2 codes, one ue8m0 scale per 32) and F16 / BF16 on AVX-512 with fp32 activations:
// matmul_float_kernel.h on 16 lanes (one 16-row group per register, tiles of up to 16 activation
// rows). Weights stay 8-bit in memory (ck_matmul.h: qs = [group][block][32][16] codes).
//
// A code becomes its value in registers, exactly: sign-extended to 16 bits and shifted left 7,
// with bit 14 cleared, an E4M3 code is the binary16 of its value times 2^-8 (subnormals
// included); an E5M2 code shifted left 8 is its binary16. vcvtph2ps is exact, and so is the
// multiplication by 2^8. (A block holding an E4M3 NaN code has a NaN scale from the repack, so
// its outputs are NaN as in the reference; the shift alone would read the code as 480.)
//
// matmul_float_avx512_emu.c compiles this file again against SIMDe (CK_AVX512_EMULATED), so the
// tests check it bit for bit on CPUs without AVX-512.
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: AVX2 / AVX-512 / AMX intrinsics

#include <string.h>
#include "ck_matmul.h"

#include "avx512_target.h"

/// The 16 codes of one k in a 16-row group -> their fp32 values, E4M3 ones times 2^-8 (exact).
T512 static inline __attribute__((always_inline)) __m512 decode16_scaled(const uint8_t *codes, const int E4M3) {
    const __m128i c = _mm_loadu_si128((const __m128i *)codes);
    const __m256i h = E4M3 ? _mm256_and_si256(_mm256_slli_epi16(_mm256_cvtepi8_epi16(c), 7), _mm256_set1_epi16((short)0xBFFF))
                           : _mm256_slli_epi16(_mm256_cvtepu8_epi16(c), 8);
    return _mm512_cvtph_ps(h);
}

/// The 16 E4M3 codes of one k in a 16-row group -> their fp32 values times 2^-120, exactly:
/// sign-extended to 32 bits and shifted left 20, a code's sign lands in bit 31 and its exponent
/// and mantissa under fp32's (bias 127 against E4M3's 7, hence 2^-120); clearing bits 30..27
/// (copies of the sign) leaves the value. Subnormal codes become fp32 subnormals, read exactly
/// by the fma. The NaN code reads as 480 * 2^-120; its block's NaN scale makes the output NaN.
T512 static inline __attribute__((always_inline)) __m512 decode16_e4m3_biased(const uint8_t *codes) {
    const __m512i c = _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)codes));
    return _mm512_castsi512_ps(_mm512_and_si512(_mm512_slli_epi32(c, 20), _mm512_set1_epi32((int)0x87FFFFFF)));
}

#define TARGET T512
#define VEC __m512
#define LANES 16
#define ROWS 8
#define PASS_UNITS 2
#define V_ZERO() _mm512_setzero_ps()
#define V_SET1(f) _mm512_set1_ps(f)
#define V_MUL(a, b) _mm512_mul_ps(a, b)
#define V_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define V_LOADU(p) _mm512_loadu_ps(p)
#define V_STOREU(p, v) _mm512_storeu_ps(p, v)
#define V_PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#define V_DECODE_SCALED(codes, E4M3) decode16_scaled(codes, E4M3)
#define V_DECODE_E4M3_BIASED(codes) decode16_e4m3_biased(codes)
#define V_DECODE_F16(h) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(h)))
#define V_DECODE_BF16(h) _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(h))), 16))
#define KERNEL ck_matmul_float_avx512
#include "matmul_float_kernel.h"
#endif
