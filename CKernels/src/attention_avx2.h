// Private to the attention drivers with AVX2 kernels beside their portable code
// (attention_split.c, attention_tiled.c, attention_heads.c): the target and inlining attributes and, on x86-64
// only, the intrinsics and the AVX2 helpers (the vector exp, horizontal reductions, KV block reads).
#ifndef CK_ATTENTION_AVX2_H
#define CK_ATTENTION_AVX2_H

#define T256 __attribute__((target("avx2,fma,f16c")))
#define INLINE static inline __attribute__((always_inline))

#if defined(__x86_64__)
#include <immintrin.h>
#include "avx2_exp.h"
#include "avx2_reduce.h"
#include "attention_kv_avx2.h"

/// Eight fp16 values widened to fp32.
T256 INLINE __m256 load_half8(const uint8_t *p) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)); }

/// Most query heads f16_dots serves in one call.
enum { F16_DOTS_MAX = 8 };

/// acc[i] (eight lanes summing to q_i · k) for the G query heads q + i*hd against one fp16 K
/// segment: two FMA chains per head, the dims d mod 16 below 8 and from 8 (a last group of eight
/// into the first), added. The split-K unit's fp16 order and the per-head kernel's for positions
/// outside whole groups of eight; each K vector is widened once for every head.
T256 INLINE void f16_dots(const float *q, int64_t hd, const uint8_t *seg, int G, __m256 *acc) {
    __m256 odd[F16_DOTS_MAX];
    for (int i = 0; i < G; i++) acc[i] = odd[i] = _mm256_setzero_ps();
    int64_t d = 0;
    for (; d + 16 <= hd; d += 16) {
        const __m256 k0 = load_half8(seg + 2 * d), k1 = load_half8(seg + 2 * d + 16);
        for (int i = 0; i < G; i++) {
            acc[i] = _mm256_fmadd_ps(_mm256_loadu_ps(q + i * hd + d), k0, acc[i]);
            odd[i] = _mm256_fmadd_ps(_mm256_loadu_ps(q + i * hd + d + 8), k1, odd[i]);
        }
    }
    if (d < hd) {
        const __m256 k0 = load_half8(seg + 2 * d);
        for (int i = 0; i < G; i++) acc[i] = _mm256_fmadd_ps(_mm256_loadu_ps(q + i * hd + d), k0, acc[i]);
    }
    for (int i = 0; i < G; i++) acc[i] = _mm256_add_ps(acc[i], odd[i]);
}
#endif

#endif
