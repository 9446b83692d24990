// Private to the AVX-512 split-K units (attention_split_avx512.c for fp16,
// attention_split_q8_0_avx512.c for q8_0): what both compile with (avx512_target.h's native or
// SIMDe switch, the head group width and its dispatch), and their softmax on 16 lanes. Once the
// q8_0 unit's score and value passes were on 16 lanes, the AVX2 softmax (range_softmax) was 15 %
// of its time in cache (SmolLM2 shape, 2048 positions, 1 thread).
#ifndef CK_ATTENTION_SPLIT_AVX512_H
#define CK_ATTENTION_SPLIT_AVX512_H

#include "attention_split_unit.h"
#include "avx512_target.h"
#include "avx512_exp.h"

/// Query heads per pass over a K row or a V block (split_pass's SPLIT_GW).
enum { GW = SPLIT_GW };

/// CALL with G_ a constant 1 .. GW, so the head loops unroll into registers.
#define FOR_G(G, CALL) switch (G) { case 1: { const int G_ = 1; CALL; } break; case 2: { const int G_ = 2; CALL; } break; \
                                    case 3: { const int G_ = 3; CALL; } break; default: { const int G_ = 4; CALL; } break; }

/// The sum of v's lanes as a fixed tree (the same in the native and the SIMDe build).
T512 INLINE float sum16(__m512 v) {
    float f[16];
    _mm512_storeu_ps(f, v);
    for (int w = 8; w > 0; w /= 2)
        for (int i = 0; i < w; i++) f[i] += f[i + w];
    return f[0];
}

/// range_softmax on 16 lanes: per head the max of s, s replaced by e^(s - max) and their sum into
/// m and l, the partial output zeroed. Whole 32-position pairs run two exp16 chains side by side
/// with a sum each (one chain at a time left the polynomial's latency exposed: 0.042 -> 0.035 ms
/// for 4 SmolLM2-shaped layers of 4096 positions, in cache, 1 thread); the rest 16 at a time, a
/// last group of fewer than 16 positions through masks.
T512 INLINE void range_softmax16(const range_job *j) {
    const int64_t hd = j->hd, len = j->len;
    for (int64_t h = 0; h < j->heads; h++) {
        float *sh = j->s + h * len;
        __m512 vmax = _mm512_set1_ps(-__builtin_inff());
        int64_t p = 0;
        for (; p + 16 <= len; p += 16) vmax = _mm512_max_ps(vmax, _mm512_loadu_ps(sh + p));
        if (p < len) {
            const __mmask16 m = (__mmask16)((1u << (len - p)) - 1);
            vmax = _mm512_mask_max_ps(vmax, m, vmax, _mm512_maskz_loadu_ps(m, sh + p));
        }
        const float mx = _mm512_reduce_max_ps(vmax);
        const __m512 mv = _mm512_set1_ps(mx);
        __m512 sum = _mm512_setzero_ps(), sum2 = _mm512_setzero_ps();
        for (p = 0; p + 32 <= len; p += 32) {
            const __m512 e0 = exp16(_mm512_sub_ps(_mm512_loadu_ps(sh + p), mv));
            const __m512 e1 = exp16(_mm512_sub_ps(_mm512_loadu_ps(sh + p + 16), mv));
            _mm512_storeu_ps(sh + p, e0);
            _mm512_storeu_ps(sh + p + 16, e1);
            sum = _mm512_add_ps(sum, e0);
            sum2 = _mm512_add_ps(sum2, e1);
        }
        sum = _mm512_add_ps(sum, sum2);
        for (; p < len; p += 16) {
            const int64_t left = len - p;
            const __mmask16 m = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1);
            const __m512 e = _mm512_maskz_mov_ps(m, exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, sh + p), mv)));
            _mm512_mask_storeu_ps(sh + p, m, e);
            sum = _mm512_add_ps(sum, e);
        }
        j->m[h] = mx;
        j->l[h] = sum16(sum);
        for (int64_t d = 0; d < hd; d += 16) _mm512_storeu_ps(j->o + h * hd + d, _mm512_setzero_ps());
    }
}

#endif
