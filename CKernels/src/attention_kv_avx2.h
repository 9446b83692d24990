// Private to the attention kernels: AVX2 reads of KV cache rows stored in the block formats
// (ck_ops.h: q8_0, MXFP8 E4M3). A KV head segment of hd elements (hd a multiple of 32) is hd/32
// blocks; element i of a block is kv_codes(block) * kv_unit * kv_block_scale(block), exactly
// what ck_kv_load_row gives when multiplied in that order. Also the int16 query that the q8_0
// kernels' integer dot products meet those codes with (quantize_query).
#ifndef CK_ATTENTION_KV_AVX2_H
#define CK_ATTENTION_KV_AVX2_H

#include <immintrin.h>
#include "ck_ops.h"
#include "attention_prefetch.h"
#include "ck_blocks.h"
#include "ck_mx.h"
#include "avx2_reduce.h"

#define KV_AVX2 __attribute__((target("avx2,fma,f16c"))) static inline __attribute__((always_inline))

/// Bytes of one 32-element block.
static inline int64_t kv_block_bytes(ck_kv_format f) {
    return f == CK_KV_Q8_0 ? (int64_t)sizeof(ck_block_q8_0) : (int64_t)sizeof(ck_block_mxfp8);
}

/// Power of two the codes of kv_codes8 are short of: E4M3 codes decode through an fp16 whose
/// value is the E4M3 value times 2^-8 (kv_format.c's e4m3_to_fp32).
static inline float kv_unit(ck_kv_format f) { return f == CK_KV_Q8_0 ? 1.0f : 256.0f; }

/// The block's scale: q8_0 its fp16 d, MXFP8 2^(e-127).
KV_AVX2 float kv_block_scale(ck_kv_format f, const uint8_t *blk) {
    if (f == CK_KV_Q8_0) return _cvtsh_ss(((const ck_block_q8_0 *)blk)->d);
    return ck_e8m0_to_fp32(((const ck_block_mxfp8 *)blk)->e);
}

/// Elements e .. e+7 (e a multiple of 8 below 32) of the block, without unit and scale: the int8
/// codes of q8_0; for E4M3, sign and the 7 exponent/mantissa bits moved into an fp16 (code
/// S.1111.111, NaN in E4M3, decodes to 480 instead: the quantizer writes it only for NaN input).
KV_AVX2 __m256 kv_codes8(ck_kv_format f, const uint8_t *blk, int e) {
    if (f == CK_KV_Q8_0) {
        const __m128i c = _mm_loadl_epi64((const __m128i *)(((const ck_block_q8_0 *)blk)->qs + e));
        return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(c));
    }
    const __m128i c = _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)(((const ck_block_mxfp8 *)blk)->qs + e)));
    const __m128i h = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(c, _mm_set1_epi16(0x80)), 8),
                                   _mm_slli_epi16(_mm_and_si128(c, _mm_set1_epi16(0x7F)), 7));
    return _mm256_cvtph_ps(h);
}

/// q16[h][e] = round(q[h][e] / qs[h]) with qs[h] = max_e |q[h][e]| / 32767 (q16 zero for a zero
/// head): 15 bits of the head's largest element. On 8 lanes (hd a multiple of 16, as q8_0 heads
/// are): vcvtps2dq rounds to nearest even as lrintf does, |q * inv| <= 32767 so the int16 pack
/// does not saturate, and the maximum takes |q| first so a NaN element is skipped as a scalar
/// `>` would skip it. Its scalar form was ~1/3 of a 256-position unit's time (quantize_query16,
/// the AVX-512 unit's twin of this function). Shared by the q8_0 split-K unit and the blocked
/// prefill's integer scores.
KV_AVX2 void quantize_query(const float *q, int64_t heads, int64_t hd, int16_t *q16, float *qs) {
    const __m256 sign = _mm256_set1_ps(-0.0f);
    for (int64_t h = 0; h < heads; h++) {
        const float *qh = q + h * hd;
        __m256 mx = _mm256_setzero_ps();
        for (int64_t e = 0; e < hd; e += 8) mx = _mm256_max_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(qh + e)), mx);
        const float amax = ck_hmax256(mx);
        const __m256 inv = _mm256_set1_ps(amax > 0 ? 32767.0f / amax : 0.0f);
        for (int64_t e = 0; e < hd; e += 16) {
            const __m256i lo = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(qh + e), inv));
            const __m256i hi = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(qh + e + 8), inv));
            // packs works per 128-bit lane (lo 0-3, hi 0-3, lo 4-7, hi 4-7): reorder the quads.
            _mm256_storeu_si256((__m256i *)(q16 + h * hd + e), _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), 0xD8));
        }
        qs[h] = amax / 32767.0f;
    }
}

#endif
