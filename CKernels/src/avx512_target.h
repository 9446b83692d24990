// How an AVX-512 kernel file compiles: natively, its functions carrying the target attributes
// every AVX-512 path requires (F, BW, VL, VNNI on top of AVX2, FMA and F16C; kernel_table.c checks
// the CPU for all of them), or, with CK_AVX512_EMULATED (the *_emu.c twins), against SIMDe so the
// tests run the same source on any x86-64 CPU. One switch for all of them.
#ifndef CK_AVX512_TARGET_H
#define CK_AVX512_TARGET_H

#ifdef CK_AVX512_EMULATED
#include "avx512_simde.h"
#define T512
#else
#include <immintrin.h>
#define T512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")))
#endif
#define INLINE static inline __attribute__((always_inline))
/// Constant-trip loops over tile rows, heads, halves and quads: unrolled so accumulators stay in
/// registers.
#define UNROLL _Pragma("clang loop unroll(full)")

#endif
