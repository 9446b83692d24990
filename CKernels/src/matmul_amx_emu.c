// The AMX kernel (matmul_amx.c) compiled a second time over the portable tile layer (ck_tile.h),
// with SIMDe's AVX-512 for its epilogue and the SIMDe AVX-512 kernel for one row, as
// ck_matmul_amx_emu (CK_PATH_AMX_EMU), so its correctness is tested on any x86-64 CPU.
#pragma STDC FP_CONTRACT OFF
#if defined(__x86_64__)   // x86-64 only: AVX2 / AVX-512 / AMX intrinsics
#define CK_AMX_EMULATED 1
#define ck_matmul_amx ck_matmul_amx_emu
#define ck_matmul_avx512 ck_matmul_avx512_emu
#include "matmul_amx.c"
#endif
