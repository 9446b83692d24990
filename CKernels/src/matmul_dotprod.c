// ARM64 matmul with the dot-product extension (FEAT_DotProd, ARMv8.2+: Neoverse N1, Graviton 2+,
// Apple M1+): one SDOT per 4 rows x 4 bytes of a quad, its activation bytes q[4j..4j+3] taken as
// a lane of the 16-byte activation register. The 16-row interleaved layout is exactly SDOT's
// operand: 16 bytes = 4 rows x 4 consecutive k. The fp32 epilogue is the shared canonical one
// (matmul_neon_common.h), so the outputs are ck_matmul_ref's bits.
#pragma STDC FP_CONTRACT OFF

#include "matmul_neon_common.h"

#if defined(__aarch64__)

#define DOTPROD __attribute__((target("dotprod")))

/// Quad j of the block (4 registers) against lane j % 4 of the activation half qv.
#define QUAD(j, qv, s)                                                                                         \
    for (int i = 0; i < 4; i++) dot[s][i] = vdotq_laneq_s32(dot[s][i], vreinterpretq_s8_u8(blk->v[4 * (j) + i]), qv, (j) % 4)

DOTPROD static inline void block_dots_dotprod(const neon_block *blk, const int8_t *q, int nsc, int32x4_t dot[2][4]) {
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 4; i++) dot[s][i] = vdupq_n_s32(0);
    const int8x16_t lo = vld1q_s8(q), hi = vld1q_s8(q + 16);
    const int s = nsc == 2;   // Q6_K: k 16..31 into its second scale's dots
    QUAD(0, lo, 0); QUAD(1, lo, 0); QUAD(2, lo, 0); QUAD(3, lo, 0);
    QUAD(4, hi, s); QUAD(5, hi, s); QUAD(6, hi, s); QUAD(7, hi, s);
}

NEON_ROW_KERNEL(ck_matmul_dotprod, DOTPROD, block_dots_dotprod)

#endif
