// MXFP8 (E4M3 / E5M2 codes, one ue8m0 scale per 32) and F16 / BF16 on AVX2 + F16C + FMA with fp32
// activations: matmul_float_kernel.h on 8 lanes (half a 16-row group per register, tiles of up to
// 8 activation rows in the 16 ymm registers). The conversion is matmul_float_avx512.c's.
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: AVX2 / AVX-512 / AMX intrinsics

#include "matmul_avx2_common.h"

/// The 8 codes of one k in a half group -> their fp32 values, E4M3 ones times 2^-8 (exact).
T256 INLINE __m256 decode8_scaled(const uint8_t *codes, const int E4M3) {
    const __m128i c = _mm_loadl_epi64((const __m128i *)codes);
    const __m128i h = E4M3 ? _mm_and_si128(_mm_slli_epi16(_mm_cvtepi8_epi16(c), 7), _mm_set1_epi16((short)0xBFFF))
                           : _mm_slli_epi16(_mm_cvtepu8_epi16(c), 8);
    return _mm256_cvtph_ps(h);
}

/// The 8 E4M3 codes of one k in a half group -> their fp32 values times 2^-120, exactly (as
/// matmul_float_avx512.c's decode16_e4m3_biased).
T256 INLINE __m256 decode8_e4m3_biased(const uint8_t *codes) {
    const __m256i c = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)codes));
    return _mm256_castsi256_ps(_mm256_and_si256(_mm256_slli_epi32(c, 20), _mm256_set1_epi32((int)0x87FFFFFF)));
}

#define TARGET T256
#define VEC __m256
#define LANES 8
#define ROWS 4
#define PASS_UNITS 2
#define DECODE_PAIRS 0
#define V_ZERO() _mm256_setzero_ps()
#define V_SET1(f) _mm256_set1_ps(f)
#define V_MUL(a, b) _mm256_mul_ps(a, b)
#define V_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define V_LOADU(p) _mm256_loadu_ps(p)
#define V_STOREU(p, v) _mm256_storeu_ps(p, v)
#define V_PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#define V_DECODE_SCALED(codes, E4M3) decode8_scaled(codes, E4M3)
#define V_DECODE_E4M3_BIASED(codes) decode8_e4m3_biased(codes)
#define V_DECODE_F16(h) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(h)))
#define V_DECODE_BF16(h) _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(h))), 16))
#define V_E8M0_SCALES(codes, off) ck_e8m0_scales8(codes, off)
#define KERNEL ck_matmul_float_avx2
#include "matmul_float_kernel.h"
#endif
