// AVX2 twins of the elementwise ops in ops.c that show up in profiles (SwiGLU's expf: ~8% of a
// SmolLM2 prefill when scalar). Not bit-identical to libm: exp is ck_exp_avx2 (avx2_exp.h),
// about 1 ulp (SwiGLUTests bound the result against fp64).
#pragma STDC FP_CONTRACT OFF

#include <immintrin.h>
#include "ck_ops.h"
#include "avx2_exp.h"

#define T256 __attribute__((target("avx2,fma")))

T256 void ck_swiglu_avx2(float *gate, const float *up, int64_t n) {
    const __m256 one = _mm256_set1_ps(1.0f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 g = _mm256_loadu_ps(gate + i);
        const __m256 e = ck_exp_avx2(_mm256_sub_ps(_mm256_setzero_ps(), g));
        const __m256 silu = _mm256_div_ps(g, _mm256_add_ps(one, e));
        _mm256_storeu_ps(gate + i, _mm256_mul_ps(silu, _mm256_loadu_ps(up + i)));
    }
    if (i < n) ck_swiglu_ref(gate + i, up + i, n - i);
}
