// The decode prefetch distance (ck_matmul.h: CK_DECODE_PF_BYTES), chosen for the CPU when the
// library loads.
//
// Measured with `bench kernels --m 1 --threads 2 --cold --prefetch A,B` (the distances timed in
// turns inside one process: a shared host's memory rate moves by up to 2x between processes)
// and, on Zen 5 before that option, with decode tokens alternating between two distances:
// - Zen 5 EPYC VM (AVX-512 path), time in the decode matmuls at 6144 against 4096 bytes:
//   Llama 3.2 1B shapes Q6_K -5.6 %, Q4_0 -3.4 %; Qwen 2.5 1.5B Q4_K_M -4.4 % (AVX2 path: Q4_0
//   -2.2 %, Q6_K -6.6 %); MXFP8 -2 %; Qwen3 4B Q8_0 +-1 %; 7168 as 6144; 8192: Q4_0 +1.9 %;
//   2048: Q6_K +14 %. So 6144, which is also the default for CPUs not measured.
// - Zen 3 EPYC VM (AVX2 path), `vs stream read` at 3072 / 4096 / 6144 bytes in turns: every
//   format of Qwen 2.5 1.5B's FFN and Gemma 3's head shapes read as fast or faster at 3072, by
//   up to 0.06 of the read (Q4_0 0.99 / 0.97 / 0.93, Q8_0 0.95 / 0.94 / 0.92, Q6_K 1.00 / 0.96 /
//   0.94, MXFP8 E4M3 0.91 / 0.91 / 0.85 of it); 2048 measured within 0.04 of 3072 either way.
//   Why this core wants half Zen 5's distance is not measured (no cycle counters in its VM).
// A CPU measured otherwise gets a line here.
#include "ck_matmul.h"

enum { DEFAULT_BYTES = 6144, MAX_BYTES = 65536 };

int64_t ck_decode_pf_bytes = DEFAULT_BYTES;

int64_t ck_decode_prefetch_bytes(int64_t bytes) {
    if (bytes >= 0) __atomic_store_n(&ck_decode_pf_bytes, (bytes > MAX_BYTES ? MAX_BYTES : bytes) & ~(int64_t)63, __ATOMIC_RELAXED);
    return ck_decode_pf_distance();
}

#if defined(__x86_64__)
enum { ZEN3_BYTES = 3072 };

__attribute__((constructor)) static void choose_for_this_cpu(void) {
    __builtin_cpu_init();
    // Some libgcc versions name later family 19h models (Zen 4, which has AVX-512) znver3 too.
    if (__builtin_cpu_is("znver3") && !__builtin_cpu_supports("avx512f")) ck_decode_prefetch_bytes(ZEN3_BYTES);
}
#endif
