// ARM64 matmul, plain NEON (ARMv8.0, e.g. Cortex-A53 / Raspberry Pi 3): the integer dots of a
// block by widening multiplies (SMULL, 8 x 8 -> 16 bits) and pairwise adds into int32 lanes.
// Exact: every weight byte is signed (neon_signed_block) and |w * q| <= 128 * 127, so the sum of
// two products fits int16. The fp32 epilogue is the shared canonical one (matmul_neon_common.h),
// so the outputs are ck_matmul_ref's bits.
#pragma STDC FP_CONTRACT OFF

#include "matmul_neon_common.h"

#if defined(__aarch64__)

/// dot[s][i] += rows 4i..4i+3 of quads j (s = j / 4 when nsc == 2) against q[4j..4j+3].
static inline void block_dots_neon(const neon_block *blk, const int8_t *q, int nsc, int32x4_t dot[2][4]) {
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 4; i++) dot[s][i] = vdupq_n_s32(0);
    for (int j = 0; j < 8; j++) {
        int32_t q4;
        memcpy(&q4, q + 4 * j, 4);
        const int8x16_t qv = vreinterpretq_s8_s32(vdupq_n_s32(q4));   // q[4j..4j+3] four times
        const int s = nsc == 2 && j >= 4;
        for (int i = 0; i < 4; i++) {
            const int8x16_t wv = vreinterpretq_s8_u8(blk->v[4 * j + i]);
            const int16x8_t lo = vmull_s8(vget_low_s8(wv), vget_low_s8(qv)), hi = vmull_high_s8(wv, qv);
            dot[s][i] = vpadalq_s16(dot[s][i], vpaddq_s16(lo, hi));   // 2 products per int16, 4 per lane
        }
    }
}

NEON_ROW_KERNEL(ck_matmul_neon, , block_dots_neon)

#endif
