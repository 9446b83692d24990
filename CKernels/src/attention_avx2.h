// Private to the attention drivers with AVX2 kernels beside their portable code
// (attention_split.c, attention_tiled.c): the target and inlining attributes and, on x86-64
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
#endif

#endif
