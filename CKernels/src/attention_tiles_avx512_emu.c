// The AVX-512 attention tiles (attention_tiles_avx512.c) compiled a second time against SIMDe,
// so the tests run them on any x86-64 CPU (the avx512-emu and amx-emu paths).
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: AVX2 / AVX-512 / AMX intrinsics
#define CK_AVX512_EMULATED 1
#define ck_attention_scores_avx512 ck_attention_scores_avx512_emu
#define ck_attention_values_avx512 ck_attention_values_avx512_emu
#define ck_attention_scores_q8_0_avx512 ck_attention_scores_q8_0_avx512_emu
#define ck_attention_values_q8_0_avx512 ck_attention_values_q8_0_avx512_emu
#define ck_attention_softmax_avx512 ck_attention_softmax_avx512_emu
#include "attention_tiles_avx512.c"
#endif
