// AMX-INT8 twin of ck_matmul_ref for several activation rows (bit-identical); one row runs the
// AVX-512 kernel. Written over the tile layer (ck_tile.h) and compiled twice: here with the
// intrinsics, and in matmul_amx_emu.c over the portable tiles.
//
// tdpbsud multiplies signed bytes (A) by unsigned bytes (B), so A is the int8 activations and B
// the unsigned canonical weights u, and C[act row][weight row] is already y's orientation:
//  - A: 16 activation rows x one 32-block (32 bytes), straight from ck_act.q (stride k);
//  - B: one 16-row group's 32-block in the repacked byte layout, which IS the tile layout B needs
//    (8 rows of 64 bytes = 4 consecutive k x 16 weight rows), so byte formats load it as stored and
//    4-bit / Q5_0 formats unpack one 512-byte block (ck_byte_layout_block);
//  - C: 16 x 16 int32 dots of one block.
// Every block's dot is stored and the canonical fp32 epilogue (ck_matmul.h) applied per output in
// block order, so the result equals the reference's bit for bit; K per tile is 32 (16 for Q6_K's
// two half-block scales), one block, because each block has its own scale. 2 x 2 tiles (32
// activation rows x 2 groups) per step: C in tmm0-3, A in tmm4-5, B in tmm6-7.
#pragma STDC FP_CONTRACT OFF

#include <math.h>
#include <string.h>
#include "ck_matmul.h"
#include "ck_convert.h"
#include "ck_tile.h"

#ifdef CK_AMX_EMULATED
#define TAMX
#else
#define TAMX __attribute__((target("amx-tile,amx-int8,avx512f,avx512bw,avx512vl,fma,f16c")))
#endif

/// One step's operands and fp32 accumulators: 32 activation rows x 32 weight rows.
typedef struct {
    uint8_t bstage[2][512];       // unpacked weight blocks (4-bit and Q5_0 formats)
    int8_t astage[2][16 * 32];    // activation rows padded to 16 (the last, partial tile)
    int32_t dot[2][2][2][16][16]; // [half][act tile][group][act row][weight row]
    float acc[32][32];
} amx_scratch;

static float scale_at(const void *plane, int64_t i, int half) {
    return half ? ck_fp16_to_fp32(((const ck_half *)plane)[i]) : ((const float *)plane)[i];
}

/// Activation tile i (rows m0 + 16i ..) of block b, half h (K = kb bytes): a pointer and stride
/// into ck_act.q, or the padded copy when fewer than 16 rows remain.
static const int8_t *act_tile(const ck_act *a, amx_scratch *s, int i, int64_t m0, int64_t b, int h, int kb,
                              int64_t *stride) {
    const int64_t first = m0 + 16 * i, rows = a->m - first;
    const int8_t *p = a->q + first * a->k + b * 32 + h * kb;
    if (rows >= 16) { *stride = a->k; return p; }
    memset(s->astage[i], 0, sizeof s->astage[i]);
    for (int64_t r = 0; r < rows; r++) memcpy(s->astage[i] + r * 32, p + r * a->k, (size_t)kb);
    *stride = 32;
    return s->astage[i];
}

/// The dots of block b for activation tiles [0, mt) x groups g .. g + gt - 1, into s->dot.
TAMX static void block_dots(const ck_weights *w, const ck_act *a, amx_scratch *s, int64_t m0, int mt, int64_t g,
                            int gt, int64_t b, int nsc, int bytes_stored) {
    const int64_t nb = a->k / 32;
    const int kb = 32 / nsc;
    const uint8_t *bw[2];
    for (int j = 0; j < gt; j++) {
        if (bytes_stored) bw[j] = w->qs + ((g + j) * nb + b) * 512;
        else { ck_byte_layout_block(w, g + j, b, s->bstage[j]); bw[j] = s->bstage[j]; }
    }
    for (int h = 0; h < nsc; h++) {   // Q6_K: elements 0-15, then 16-31 (B rows 0-3, then 4-7)
        int64_t st0, st1 = 0;
        const int8_t *a0 = act_tile(a, s, 0, m0, b, h, kb, &st0);
        const int8_t *a1 = mt > 1 ? act_tile(a, s, 1, m0, b, h, kb, &st1) : NULL;
        tile_zero(0); tile_zero(1); tile_zero(2); tile_zero(3);
        tile_load(4, a0, st0);
        tile_load(6, bw[0] + 256 * h, 64);
        tile_dp(0, 4, 6);
        if (gt > 1) { tile_load(7, bw[1] + 256 * h, 64); tile_dp(1, 4, 7); }
        if (mt > 1) {
            tile_load(5, a1, st1);
            tile_dp(2, 5, 6);
            if (gt > 1) tile_dp(3, 5, 7);
        }
        tile_store(0, s->dot[h][0][0], 64);
        if (gt > 1) tile_store(1, s->dot[h][0][1], 64);
        if (mt > 1) tile_store(2, s->dot[h][1][0], 64);
        if (mt > 1 && gt > 1) tile_store(3, s->dot[h][1][1], 64);
    }
}

/// The canonical epilogue of block b for the step's valid rows (ck_matmul.h, ck_matmul_ref order).
TAMX static void block_epilogue(const ck_weights *w, const ck_act *a, amx_scratch *s, const ck_format_info *info,
                                int64_t m0, int64_t mrows, int64_t g, int gt, int64_t b) {
    const int64_t nb = a->k / 32;
    const float negoff = (float)(-info->off);
    for (int j = 0; j < gt; j++) {
        float d0[16], d1[16], mw[16];
        const int64_t di = ((g + j) * nb + b) * info->nsc * CK_R;
        for (int c = 0; c < 16; c++) {
            d0[c] = scale_at(w->dw, di + c, info->half_scales);
            d1[c] = info->nsc == 2 ? scale_at(w->dw, di + CK_R + c, info->half_scales) : 0.0f;
            mw[c] = info->has_min ? scale_at(w->mw, ((g + j) * nb + b) * CK_R + c, info->half_scales) : d0[c] * negoff;
        }
        for (int64_t r = 0; r < mrows; r++) {
            const float *meta = a->meta + ((m0 + r) * nb + b) * 4;
            const int32_t *dot0 = s->dot[0][r / 16][j][r % 16], *dot1 = s->dot[1][r / 16][j][r % 16];
            float *acc = s->acc[r] + 16 * j;
            if (info->nsc == 1) {
                for (int c = 0; c < 16; c++) {
                    acc[c] = fmaf((float)dot0[c] * d0[c], meta[0], acc[c]);
                    acc[c] = fmaf(mw[c], meta[1], acc[c]);
                }
            } else {
                for (int c = 0; c < 16; c++) {
                    acc[c] = fmaf((float)dot0[c] * d0[c], meta[0], acc[c]);
                    acc[c] = fmaf((float)dot1[c] * d1[c], meta[0], acc[c]);
                    acc[c] = fmaf(d0[c] * negoff, meta[2], acc[c]);
                    acc[c] = fmaf(d1[c] * negoff, meta[3], acc[c]);
                }
            }
        }
    }
}

TAMX static void amx_prefill(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0,
                             int64_t n1) {
    const ck_format_info info = ck_weight_format_info(w->format);
    const int nsc = info.nsc, kb = 32 / nsc;
    const int bytes_stored = w->qs && !info.packed4;
    ck_tile_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette = 1;
    for (int t = 0; t < 4; t++) { cfg.rows[t] = 16; cfg.colsb[t] = 64; }          // C: 16 x 16 int32
    for (int t = 4; t < 6; t++) { cfg.rows[t] = 16; cfg.colsb[t] = (uint16_t)kb; } // A: 16 x K bytes
    for (int t = 6; t < 8; t++) { cfg.rows[t] = (uint8_t)(kb / 4); cfg.colsb[t] = 64; } // B: K/4 x 64
    tile_config(&cfg);
    static _Thread_local amx_scratch s;
    const int64_t nb = d->k / 32, g0 = n0 / CK_R, g1 = (n1 + CK_R - 1) / CK_R;
    for (int64_t g = g0; g < g1; g += 2) {
        const int gt = g + 1 < g1 ? 2 : 1;
        for (int64_t m0 = 0; m0 < d->m; m0 += 32) {
            const int64_t mrows = d->m - m0 < 32 ? d->m - m0 : 32;
            const int mt = mrows > 16 ? 2 : 1;
            memset(s.acc, 0, sizeof s.acc);
            for (int64_t b = 0; b < nb; b++) {
                block_dots(w, a, &s, m0, mt, g, gt, b, nsc, bytes_stored);
                block_epilogue(w, a, &s, &info, m0, mrows, g, gt, b);
            }
            for (int64_t r = 0; r < mrows; r++)
                for (int c = 0; c < 16 * gt && g * CK_R + c < n1; c++) {
                    float *out = y + (m0 + r) * d->n + g * CK_R + c;
                    *out = d->accumulate ? *out + s.acc[r][c] : s.acc[r][c];
                }
        }
    }
    tile_release();
}

void ck_matmul_amx(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1) {
    if (n1 > d->n) n1 = d->n;
    if (d->m == 1 || !ck_weight_format_info(w->format).int8_path) { ck_matmul_avx512(d, w, a, y, n0, n1); return; }
    amx_prefill(d, w, a, y, n0, n1);
}
