// AVX2 (+FMA) twins of ck_matmul_ref and ck_quantize_act_ref (same signatures, bit-identical).
//
// Same 16-row interleaved layout as the AVX-512 kernel, read as two 8-row halves: bytes
// 64j..64j+31 of a block are rows 0..7 x quad j, 64j+32.. rows 8..15. AVX2 has no u8 x s8 -> i32
// dot, so each quad is `vpmaddubsw` (u8 x s8 -> pairs summed into saturating i16) followed, after
// summing as many i16 partials as provably cannot saturate, by one `vpmaddwd` with ones (the
// K-quants: with their rows' codes, ck_code_pairs8):
//   4-bit values (<= 15):  |pair| <= 2*15*127 = 3810   -> all 8 quads summed in i16
//   Q5_0 / MXFP4 (<= 31):  7874                         -> 4 quads
//   Q6_K (<= 63):          16002                        -> 2 quads
//   the prefill's signed Q6_K (|w| <= 32) by activations + 128 (<= 255): 16320 -> 2 quads
//   Q8_0 / MXINT8 (<= 255) would saturate: split u = 16*hi + lo into two 4-bit dots (as above)
//   and combine them in i32 (cheaper than the sign trick: no per-row vpsignb).
// So the integer dot is exact and the fp32 epilogue is the reference's, lane by lane.
// The integer kernels live in matvec_avx2.c (one activation row: decode) and
// matmul_avx2_prefill.c (M > 1); this file has the activation quantizer and the dispatch
// between them (MXFP8, F16, BF16: matmul_float_avx2.c).
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: AVX2 / AVX-512 / AMX intrinsics

#include <math.h>
#include "matmul_avx2_common.h"
#include "matmul_avx2_prefill.h"
#include "avx2_reduce.h"


T256 INLINE int hsum_epi32(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return _mm_cvtsi128_si32(s);
}

/// Max |x| over n floats (n a multiple of 32).
T256 INLINE float amax_of(const float *x, int n) {
    const __m256 signmask = _mm256_set1_ps(-0.0f);
    __m256 ax = _mm256_setzero_ps();
    for (int i = 0; i < n; i += 8) ax = _mm256_max_ps(ax, _mm256_andnot_ps(signmask, _mm256_loadu_ps(x + i)));
    return ck_hmax256(ax);
}

/// fp32 -> fp16 -> fp32, round to nearest even (F16C; exact like ck_fp32_to_fp16).
T256 INLINE float fp16_round(float f) {
    return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtps_ph(_mm_set_ss(f), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)));
}

/// q = clamp(rint(x * mul), +-127) for one 32-block; the sums of both halves.
T256 INLINE void quantize32(const float *x, float mul, int8_t *q, int *s0, int *s1) {
    const __m256i lim = _mm256_set1_epi32(127), nlim = _mm256_set1_epi32(-127);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    const __m256 vmul = _mm256_set1_ps(mul);
    __m256i qi[4];
    for (int i = 0; i < 4; i++) {
        // cvtps rounds with MXCSR (nearest even), as nearbyintf does in the reference; NaN and
        // out-of-range give INT_MIN, which the clamp turns into -127 as fmaxf does.
        qi[i] = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + 8 * i), vmul));
        qi[i] = _mm256_max_epi32(_mm256_min_epi32(qi[i], lim), nlim);
    }
    // packs interleave 128-bit lanes; the dword permute restores element order.
    const __m256i p = _mm256_packs_epi16(_mm256_packs_epi32(qi[0], qi[1]), _mm256_packs_epi32(qi[2], qi[3]));
    _mm256_storeu_si256((__m256i *)q, _mm256_permutevar8x32_epi32(p, order));
    *s0 = hsum_epi32(_mm256_add_epi32(qi[0], qi[1]));
    *s1 = hsum_epi32(_mm256_add_epi32(qi[2], qi[3]));
}

/// All four schemes (ck_act_format); the same fp32 operations as ck_quantize_act_ref.
#define QUANTIZE_ACT_NAME ck_quantize_act_avx2
#define QUANTIZE_ACT_ATTR T256
#include "quantize_act_body.h"

T256 void ck_matmul_avx2(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1) {
    const ck_format_info info = ck_weight_format_info(w->format);
    if (!info.int8_path) { ck_matmul_ref(d, w, a, y, n0, n1); return; }
    if (d->m == 1) ck_matvec_avx2(d, w, a, y, n0, n1);
    else ck_matmul_avx2_prefill(d, w, a, y, n0, n1);
}
#endif
