// The AVX-512 kernels (matmul_avx512.c) compiled a second time against SIMDe: the same source on
// portable code, as ck_matmul_avx512_emu / ck_quantize_act_avx512_emu, so the tests check the
// AVX-512 kernel bit for bit on any x86-64 CPU (CK_PATH_AVX512_EMU).
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: AVX2 / AVX-512 / AMX intrinsics
#define CK_AVX512_EMULATED 1
#define ck_matmul_avx512 ck_matmul_avx512_emu
#define ck_quantize_act_avx512 ck_quantize_act_avx512_emu
#include "matmul_avx512.c"
#endif
