// ARM64 matmul with the int8 matrix-multiply extension (FEAT_I8MM, ARMv8.6+: Neoverse V1/V2,
// Graviton 3+, Apple M2+): USMMLA multiplies a 2 x 8 unsigned-weight tile by an 8 x 2 int8
// activation tile into 2 x 2 int32, so two activation rows share every weight register. Unsigned
// x signed matches the canonical form (u8 weights, s8 activations) with no offset trick. A block's
// 8-byte k runs of two rows come from two quads by a 32-bit zip (rows 4i, 4i+1 | 4i+2, 4i+3),
// once per block; the 2 x 2 results unzip back to 4 rows per activation row. For one row (decode)
// half of each USMMLA is wasted, so the path's decode slot is the dotprod kernel. The fp32 epilogue is the shared
// canonical one (matmul_neon_common.h), so the outputs are ck_matmul_ref's bits.
#pragma STDC FP_CONTRACT OFF

#include "matmul_neon_common.h"

#if defined(__aarch64__)

#define I8MM __attribute__((target("i8mm")))

/// The block as USMMLA's weight operands, once per block for every activation row pair:
/// z.v[8c + 2i + h] = rows 4i + 2h, 4i + 2h + 1 x k 8c..8c+7 (a 32-bit zip of quads 2c, 2c + 1).
static inline void zip_block(const neon_block *blk, neon_block *z) {
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < 4; i++) {
            const uint32x4_t a = vreinterpretq_u32_u8(blk->v[4 * (2 * c) + i]), b = vreinterpretq_u32_u8(blk->v[4 * (2 * c + 1) + i]);
            z->v[8 * c + 2 * i] = vreinterpretq_u8_u32(vzip1q_u32(a, b));
            z->v[8 * c + 2 * i + 1] = vreinterpretq_u8_u32(vzip2q_u32(a, b));
        }
}

/// Integer dots of the zipped block for activation rows q0 and q1 (q1 may repeat q0 for an odd
/// row): d0 / d1 [s][i] = rows 4i..4i+3, s the scale half (nsc == 2) or 0.
I8MM static inline void block_dots_pair(const neon_block *z, const int8_t *q0, const int8_t *q1, int nsc,
                                        int32x4_t d0[2][4], int32x4_t d1[2][4]) {
    int32x4_t t[2][8];   // t[s][2i + h]: rows 4i + 2h, 4i + 2h + 1 x (q0, q1)
    for (int s = 0; s < 2; s++)
        for (int x = 0; x < 8; x++) t[s][x] = vdupq_n_s32(0);
    for (int c = 0; c < 4; c++) {   // k 8c..8c+7
        const int s = nsc == 2 && c >= 2;
        const int8x16_t act = vcombine_s8(vld1_s8(q0 + 8 * c), vld1_s8(q1 + 8 * c));
        for (int x = 0; x < 8; x++) t[s][x] = vusmmlaq_s32(t[s][x], z->v[8 * c + x], act);
    }
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 4; i++) {
            d0[s][i] = vuzp1q_s32(t[s][2 * i], t[s][2 * i + 1]);
            d1[s][i] = vuzp2q_s32(t[s][2 * i], t[s][2 * i + 1]);
        }
}

I8MM void ck_matmul_i8mm(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1) {
    const ck_format_info info = ck_weight_format_info(w->format);
    if (!info.int8_path) { ck_matmul_ref(d, w, a, y, n0, n1); return; }
    const int64_t nb = d->k / 32;
    if (n1 > d->n) n1 = d->n;
    neon_out out[NEON_ROW_TILE];
    for (int64_t g = n0 / CK_R; g * CK_R < n1; g++)
        for (int64_t m0 = 0; m0 < d->m; m0 += NEON_ROW_TILE) {
            const int64_t mt = d->m - m0 < NEON_ROW_TILE ? d->m - m0 : NEON_ROW_TILE;
            memset(out, 0, sizeof out);
            for (int64_t b = 0; b < nb; b++) {
                neon_block blk, z;
                neon_unpack_block(w, &info, g * nb + b, &blk);
                zip_block(&blk, &z);
                for (int64_t i = 0; i < mt; i += 2) {
                    const int64_t m = m0 + i, m1 = i + 1 < mt ? m + 1 : m;
                    int32x4_t d0[2][4], d1[2][4];
                    block_dots_pair(&z, a->q + m * d->k + 32 * b, a->q + m1 * d->k + 32 * b, info.nsc, d0, d1);
                    neon_epilogue(&info, w, g * nb + b, d0, a, m, &out[i]);
                    if (m1 != m) neon_epilogue(&info, w, g * nb + b, d1, a, m1, &out[i + 1]);
                }
            }
            for (int64_t i = 0; i < mt; i++) neon_store(d, y, m0 + i, g, n1, out[i].acc);
        }
}

#endif
