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

/// acc + the pairwise int16 dot products of a and b (vpdpwssd). Natively as inline assembly: with
/// its generic tuning clang splits the intrinsic into vpmaddwd + vpaddd when it accumulates, two
/// instructions where every AVX512-VNNI CPU issues one (the blocked prefill's q8_0 phases spent
/// ~2x the multiply instructions they need).
#ifdef CK_AVX512_EMULATED
#define ck_dpwssd(acc, a, b) _mm512_dpwssd_epi32(acc, a, b)
#else
T512 INLINE __m512i ck_dpwssd(__m512i acc, __m512i a, __m512i b) {
    __asm__("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
    return acc;
}
#endif
/// Constant-trip loops over tile rows, heads, halves and quads: unrolled so accumulators stay in
/// registers.
#define UNROLL _Pragma("clang loop unroll(full)")

#endif
