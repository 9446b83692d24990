// The AVX-512 split-K fp16 unit (attention_split_avx512.c) compiled a second time against
// SIMDe, so the tests run it on any x86-64 CPU (the avx512-emu and amx-emu paths).
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: AVX2 / AVX-512 / AMX intrinsics
#define CK_AVX512_EMULATED 1
#define ck_attention_split_f16_avx512 ck_attention_split_f16_avx512_emu
#include "attention_split_avx512.c"
#endif
