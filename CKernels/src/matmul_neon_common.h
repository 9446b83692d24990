// Private to the ARM64 matmul kernels (matmul_neon.c, matmul_dotprod.c, matmul_i8mm.c): the
// repacked weights of one (16-row group, 32-block) in NEON registers, the canonical epilogue of
// ck_matmul.h on 16 outputs (the K-quants' integer super-block form included), and the loop over groups and activation rows that every ARM path
// shares. A path supplies only the integer dots of a block (its `block_dots` / pair kernel).
#pragma STDC FP_CONTRACT OFF
#ifndef CK_MATMUL_NEON_COMMON_H
#define CK_MATMUL_NEON_COMMON_H

#if defined(__aarch64__)
#include <arm_neon.h>
#include <string.h>
#include "ck_matmul.h"
#include "scale_storage.h"

/// One repacked block as bytes: v[4j + i] = rows 4i..4i+3 x u[4j..4j+3] (quad j of ck_weights.qs,
/// 16 bytes per register, row-major 4 bytes per row: the operand shape of SDOT's lane form).
typedef struct { uint8x16_t v[32]; } neon_block;

/// Activation rows per tile: their accumulators (tile x 16 fp32 and 16 int32, neon_out) stay in
/// one 8 KiB stack array while the group's blocks stream past once per tile.
enum { NEON_ROW_TILE = 64 };

/// Unpacks block i0 (= group * nb + block) of w into o, from whichever layout w holds (bytes,
/// packed4, Q6_K's nibbles and 2-bit planes, Q3_K's 2-bit and 1-bit planes, Q5_0's compact copy). Values are the canonical
/// unsigned u (0..255).
static inline void neon_unpack_block(const ck_weights *w, const ck_format_info *info, int64_t i0, neon_block *o) {
    if (w->format == CK_WF_Q6_K) {   // packed4's nibbles, then the top two bits of quad j at bits 2j..2j+1
        const uint8_t *q = w->qs + i0 * CK_Q6_K_PACKED_BYTES;
        const uint8x16_t lo4 = vdupq_n_u8(15), top2 = vdupq_n_u8(0x30);
        for (int i = 0; i < 4; i++) {
            const uint8x16_t plo = vld1q_u8(q + 256 + 16 * i), phi = vld1q_u8(q + 320 + 16 * i);
            for (int j = 0; j < 4; j++) {
                const uint8x16_t nib = vld1q_u8(q + 64 * j + 16 * i);
                // bits 2j..2j+1 move to bits 4..5 (shift left 4 - 2j; negative: right)
                const int8x16_t sh = vdupq_n_s8((int8_t)(4 - 2 * j));
                o->v[4 * j + i] = vorrq_u8(vandq_u8(nib, lo4), vandq_u8(vshlq_u8(plo, sh), top2));
                o->v[4 * (4 + j) + i] = vorrq_u8(vshrq_n_u8(nib, 4), vandq_u8(vshlq_u8(phi, sh), top2));
            }
        }
    } else if (w->format == CK_WF_Q3_K) {   // the 2-bit fields of quads 2v, 2v + 1 under their third bits
        const uint8_t *q = w->qs + i0 * CK_Q3_K_PACKED_BYTES;
        const uint8x16_t two = vdupq_n_u8(3), bit2 = vdupq_n_u8(4);
        for (int i = 0; i < 4; i++) {
            const uint8x16_t bits = vld1q_u8(q + 128 + 16 * i);
            for (int j = 0; j < 4; j++) {
                const uint8x16_t v2 = vld1q_u8(q + 64 * (j / 2) + 16 * i);
                for (int hi = 0; hi < 2; hi++) {
                    // fields at bit 4(j%2) + 2hi down to bit 0; third bit j + 4hi to bit 2
                    const uint8x16_t f = vandq_u8(vshlq_u8(v2, vdupq_n_s8((int8_t)-(4 * (j % 2) + 2 * hi))), two);
                    const uint8x16_t t = vandq_u8(vshlq_u8(bits, vdupq_n_s8((int8_t)(2 - (j + 4 * hi)))), bit2);
                    o->v[4 * (4 * hi + j) + i] = vorrq_u8(f, t);
                }
            }
        }
    } else if (w->qs_dec) {   // Q5_0: nibbles as packed4, fifth bits bit-sliced in row order (repack.c)
        const uint8_t *c = w->qs_dec + i0 * CK_Q5_0_COMPACT_BYTES;
        const uint8x16_t lo4 = vdupq_n_u8(15), bit4 = vdupq_n_u8(16);
        for (int i = 0; i < 4; i++) {
            const uint8x16_t bits = vld1q_u8(c + 256 + 16 * i);
            for (int j = 0; j < 4; j++) {
                const uint8x16_t nib = vld1q_u8(c + 64 * j + 16 * i);
                // bit j moves to bit 4 (shift left 4 - j), bit 4 + j to bit 4 (shift right j)
                const uint8x16_t hi_lo = vandq_u8(vshlq_u8(bits, vdupq_n_s8((int8_t)(4 - j))), bit4);
                const uint8x16_t hi_hi = vandq_u8(vshlq_u8(bits, vdupq_n_s8((int8_t)-j)), bit4);
                o->v[4 * j + i] = vorrq_u8(vandq_u8(nib, lo4), hi_lo);
                o->v[4 * (4 + j) + i] = vorrq_u8(vshrq_n_u8(nib, 4), hi_hi);
            }
        }
    } else if (info->packed4) {   // quad j's low nibbles are quad j, its high nibbles quad 4 + j
        const uint8x16_t code_u = vld1q_u8(ck_code4_u(w->format));
        const uint8_t *q = w->qs + i0 * 256;
        for (int x = 0; x < 16; x++) {
            const uint8x16_t nib = vld1q_u8(q + 16 * x);
            o->v[x] = vandq_u8(nib, vdupq_n_u8(15));
            o->v[16 + x] = vshrq_n_u8(nib, 4);
            if (info->code4) {   // MXFP4's codes to their u (TBL)
                o->v[x] = vqtbl1q_u8(code_u, o->v[x]);
                o->v[16 + x] = vqtbl1q_u8(code_u, o->v[16 + x]);
            }
        }
    } else {
        const uint8_t *q = w->qs + i0 * 512;
        for (int x = 0; x < 32; x++) o->v[x] = vld1q_u8(q + 16 * x);
    }
}

/// The block's values as signed bytes for the s8 x s8 instructions: u fits in int8 for every
/// format but the offset-128 ones (Q8_0, MXINT8), whose u - 128 (a flipped top bit) is taken
/// instead; the caller adds 128 * sum(q) back to the integer dot (exact in int32).
static inline void neon_signed_block(const ck_format_info *info, neon_block *b) {
    if (info->off != 128) return;
    for (int x = 0; x < 32; x++) b->v[x] = veorq_u8(b->v[x], vdupq_n_u8(0x80));
}

/// Four block scales (fp16 bits or fp32, per ck_format_info.half_scales) at element index i.
static inline float32x4_t neon_scales(const void *p, int half, int64_t i) {
    if (half) return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *)p + i)));
    return vld1q_f32((const float *)p + i);
}

/// 2^(e - off) for 4 ue8m0 codes c[0..3], as ck_e8m0_bits (NaN for the code 255).
static inline float32x4_t neon_e8m0_bits4(const uint8_t *c, int off) {
    const uint32x4_t e = {c[0], c[1], c[2], c[3]};
    const uint32x4_t normal = vshlq_n_u32(vsubq_u32(e, vdupq_n_u32((uint32_t)(off - 127))), 23);
    const uint32x4_t tiny = vshlq_u32(vdupq_n_u32(1u << (149 - off)), vreinterpretq_s32_u32(e));
    uint32x4_t bits = vbslq_u32(vcltq_u32(e, vdupq_n_u32((uint32_t)(off - 126))), tiny, normal);
    bits = vbslq_u32(vceqq_u32(e, vdupq_n_u32(255)), vdupq_n_u32(0x7FC00000), bits);
    return vreinterpretq_f32_u32(bits);
}

/// 2^(e - off) of rows 4r..4r+3 of block i0 from their ue8m0 codes (MXFP4: off 128, MXINT8:
/// 133).
static inline float32x4_t neon_e8m0_scales(const ck_weights *w, int64_t i0, int r, int off) {
    return neon_e8m0_bits4((const uint8_t *)w->dw + i0 * CK_R + 4 * r, off);
}

/// Scale `which` (0 dw, 2 mw) of rows 4r..4r+3 of block i0, from whichever plane w has (not
/// the K records: their epilogue takes the codes).
static inline float32x4_t neon_block_scales(const ck_format_info *info, const ck_weights *w, int64_t i0, int r, int which) {
    if (info->e8m0_offset) return neon_e8m0_scales(w, i0, r, info->e8m0_offset);
    if (which == 2) return neon_scales(w->mw, info->half_scales, i0 * CK_R + 4 * r);
    return neon_scales(w->dw, info->half_scales, i0 * CK_R + 4 * r);
}

/// One activation row's outputs of a 16-row group while its blocks stream past: the fp32
/// accumulators and, for the K-quants, the integer sum of code * dot(u, q) over the super-block
/// so far.
typedef struct {
    float acc[16];
    int32_t ksum[16];
} neon_out;

/// Four rows' codes c[0..3] as int32 (int8 for the two-scale K-quants, else u8).
static inline int32x4_t neon_codes4(const uint8_t *c, int nsc) {
    if (nsc == 2) return (int32x4_t){(int8_t)c[0], (int8_t)c[1], (int8_t)c[2], (int8_t)c[3]};
    return (int32x4_t){c[0], c[1], c[2], c[3]};
}

/// The K-quants' part of the epilogue (ck_matmul.h): code * dot(u, q) into o->ksum, and after a
/// super-block's last block its activation term (the min codes by the block sums, or the
/// half-block codes by the half-block sums) and its fp32 steps into o->acc.
static inline void neon_kquant_epilogue(const ck_format_info *info, const ck_weights *w, int64_t i0,
                                        const int32x4_t dot[2][4], const ck_act *a, int64_t m, neon_out *o) {
    const int64_t nb = w->k / 32, g = i0 / nb, b = i0 % nb;
    const int nsc = info->nsc, j = (int)(b % 8);
    const uint8_t *rec = ck_kscale_record(w->dw, nb, g, b, nsc);
    for (int r = 0; r < 4; r++) {
        int32x4_t k = vmlaq_s32(vld1q_s32(o->ksum + 4 * r), dot[0][r], neon_codes4(rec + ck_kscale_codes(j, 0, nsc) + 4 * r, nsc));
        if (nsc == 2) k = vmlaq_s32(k, dot[1][r], neon_codes4(rec + ck_kscale_codes(j, 1, 2) + 4 * r, 2));
        vst1q_s32(o->ksum + 4 * r, k);
    }
    if (j != 7) return;
    const int64_t first = m * nb + b - 7;
    const float32x4_t da = vdupq_n_f32(a->meta[(first + 7) * CK_ACT_META]);
    for (int r = 0; r < 4; r++) {
        int32x4_t t = vdupq_n_s32(0);
        for (int jj = 0; jj < 8; jj++) {
            if (nsc == 2) {
                t = vmlaq_n_s32(t, neon_codes4(rec + ck_kscale_codes(jj, 0, 2) + 4 * r, 2), a->half_sums[2 * (first + jj)]);
                t = vmlaq_n_s32(t, neon_codes4(rec + ck_kscale_codes(jj, 1, 2) + 4 * r, 2), a->half_sums[2 * (first + jj) + 1]);
            } else {
                t = vmlaq_n_s32(t, neon_codes4(rec + ck_kscale_codes(jj, 2, 1) + 4 * r, 1), a->sums[first + jj]);
            }
        }
        int32x4_t s = vld1q_s32(o->ksum + 4 * r);
        if (nsc == 2) s = vsubq_s32(s, vmulq_n_s32(t, info->off));
        const float32x4_t d = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *)rec + 4 * r)));
        float32x4_t acc = vfmaq_f32(vld1q_f32(o->acc + 4 * r), vmulq_f32(vcvtq_f32_s32(s), d), da);
        if (nsc == 1) {
            const float32x4_t dmin = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *)(rec + 32) + 4 * r)));
            acc = vfmaq_f32(acc, vmulq_f32(vcvtq_f32_s32(t), vnegq_f32(dmin)), da);
        }
        vst1q_f32(o->acc + 4 * r, acc);
        vst1q_s32(o->ksum + 4 * r, vdupq_n_s32(0));
    }
}

/// The canonical epilogue (ck_matmul.h) of block i0 for 16 outputs of activation row m: dot[s][r]
/// holds the integer dots of rows 4r..4r+3 over the block (s = 0), or for the two-scale K-quants
/// over its halves s. vfmaq_f32(a, b, c) is fmaf(b, c, a), one rounding.
static inline void neon_epilogue(const ck_format_info *info, const ck_weights *w, int64_t i0, const int32x4_t dot[2][4],
                                 const ck_act *a, int64_t m, neon_out *o) {
    if (info->kscale_rec) { neon_kquant_epilogue(info, w, i0, dot, a, m, o); return; }
    const int64_t nb = w->k / 32;
    const float *meta = a->meta + (m * nb + i0 % nb) * CK_ACT_META;
    const float32x4_t da = vdupq_n_f32(meta[0]), negoff = vdupq_n_f32((float)(-info->off));
    for (int r = 0; r < 4; r++) {
        float32x4_t s = vld1q_f32(o->acc + 4 * r);
        const float32x4_t dw0 = neon_block_scales(info, w, i0, r, 0);
        s = vfmaq_f32(s, vmulq_f32(vcvtq_f32_s32(dot[0][r]), dw0), da);
        const float32x4_t mw = info->has_min ? neon_block_scales(info, w, i0, r, 2) : vmulq_f32(dw0, negoff);
        s = vfmaq_f32(s, mw, vdupq_n_f32(meta[1]));
        vst1q_f32(o->acc + 4 * r, s);
    }
}

/// Adds 128 * sum(q) to every dot of an offset-128 format computed on signed bytes.
static inline void neon_offset_fix(const ck_format_info *info, int32_t sum, int32x4_t dot[2][4]) {
    if (info->off != 128) return;
    for (int r = 0; r < 4; r++) dot[0][r] = vaddq_s32(dot[0][r], vdupq_n_s32(128 * sum));
}

/// Writes (or adds, when accumulating) the tile's outputs for rows [r0, r1) of group g.
static inline void neon_store(const ck_matmul_desc *d, float *y, int64_t m, int64_t g, int64_t n1, const float acc[16]) {
    float *out = y + m * d->n;
    for (int r = 0; r < CK_R && g * CK_R + r < n1; r++)
        out[g * CK_R + r] = d->accumulate ? out[g * CK_R + r] + acc[r] : acc[r];
}

/// A kernel with ck_matmul_kernel's contract from a path's BLOCK_DOTS(block, q, nsc, dot): the
/// integer dots of one block against one activation row's 32 int8 values (signed weight bytes,
/// see neon_signed_block). Every output is the canonical sequence, blocks in order; groups of 16
/// columns outside, tiles of activation rows inside, so a block is unpacked once per tile.
#define NEON_ROW_KERNEL(NAME, ATTR, BLOCK_DOTS)                                                                     \
    ATTR void NAME(const ck_matmul_desc *d, const ck_weights *w, const ck_act *a, float *y, int64_t n0, int64_t n1) { \
        const ck_format_info info = ck_weight_format_info(w->format);                                             \
        if (!info.int8_path) { ck_matmul_ref(d, w, a, y, n0, n1); return; }                                       \
        const int64_t nb = d->k / 32;                                                                             \
        if (n1 > d->n) n1 = d->n;                                                                                 \
        neon_out out[NEON_ROW_TILE];                                                                              \
        for (int64_t g = n0 / CK_R; g * CK_R < n1; g++)                                                           \
            for (int64_t m0 = 0; m0 < d->m; m0 += NEON_ROW_TILE) {                                                \
                const int64_t mt = d->m - m0 < NEON_ROW_TILE ? d->m - m0 : NEON_ROW_TILE;                         \
                memset(out, 0, sizeof out);                                                                       \
                for (int64_t b = 0; b < nb; b++) {                                                                \
                    neon_block blk;                                                                               \
                    neon_unpack_block(w, &info, g * nb + b, &blk);                                                \
                    neon_signed_block(&info, &blk);                                                               \
                    for (int64_t i = 0; i < mt; i++) {                                                            \
                        const int64_t m = m0 + i;                                                                 \
                        int32x4_t dot[2][4];                                                                      \
                        BLOCK_DOTS(&blk, a->q + m * d->k + 32 * b, info.nsc, dot);                                \
                        neon_offset_fix(&info, a->sums[m * nb + b], dot);                                         \
                        neon_epilogue(&info, w, g * nb + b, dot, a, m, &out[i]);                                  \
                    }                                                                                             \
                }                                                                                                 \
                for (int64_t i = 0; i < mt; i++) neon_store(d, y, m0 + i, g, n1, out[i].acc);                     \
            }                                                                                                     \
    }

#endif
#endif
