// The AVX-512 float kernel (MXFP8, F16, BF16; matmul_float_avx512.c) compiled a second time against SIMDe, as
// ck_matmul_float_avx512_emu, so the tests check it bit for bit on any x86-64 CPU.
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: AVX2 / AVX-512 / AMX intrinsics
#define CK_AVX512_EMULATED 1
#define ck_matmul_float_avx512 ck_matmul_float_avx512_emu
#define ck_float_avx512_use_gfni ck_float_avx512_use_gfni_emu
#include "matmul_float_avx512.c"
#endif
