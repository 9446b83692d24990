// Private: the horizontal reductions of one 8-lane fp32 vector that the AVX2 kernels share
// (matmul_avx2.c's block maxima, the attention kernels' sums and maxima).
#ifndef CK_AVX2_REDUCE_H
#define CK_AVX2_REDUCE_H

#include <immintrin.h>

#define CK_REDUCE_AVX2 __attribute__((target("avx2"))) static inline __attribute__((always_inline))

/// x[0] + ... + x[7], as ((x0+x4) + (x2+x6)) + ((x1+x5) + (x3+x7)).
CK_REDUCE_AVX2 float ck_hsum256(__m256 x) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/// max(x[0], ..., x[7]).
CK_REDUCE_AVX2 float ck_hmax256(__m256 x) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_max_ss(m, _mm_movehdup_ps(m)));
}

#endif
