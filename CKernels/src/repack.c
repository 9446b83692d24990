// Weight formats' canonical integer form (see ck_matmul.h) and load-time repacking into the
// 16-row interleaved layout the SIMD kernels stream. Runs once per weight at load; never per token.
#pragma STDC FP_CONTRACT OFF

#include <math.h>
#include <stddef.h>
#include <string.h>
#include "ck_matmul.h"
#include "ck_convert.h"
#include "scale_storage.h"

_Static_assert(offsetof(ck_block_mxfp4, e) == 0 && offsetof(ck_block_mxint8, e) == 0, "MX blocks start with their scale code");

/// The format's own facts (the repacked sizes are derived in ck_weight_format_info).
static ck_format_info format_facts(ck_weight_format f) {
    //                           block  bytes int8 pk4 nsc min off  scale           act  half_scales
    switch (f) {
    case CK_WF_F32:        return (ck_format_info){1, 4, 0, 0, 0, 0, 0, CK_SCALE_NONE, CK_ACT_F32, 0};
    case CK_WF_F16:        return (ck_format_info){1, 2, 0, 0, 0, 0, 0, CK_SCALE_NONE, CK_ACT_F32, 0};
    case CK_WF_BF16:       return (ck_format_info){1, 2, 0, 0, 0, 0, 0, CK_SCALE_NONE, CK_ACT_F32, 0};
    case CK_WF_Q4_0:       return (ck_format_info){32, 18, 1, 1, 1, 0, 8, CK_SCALE_FP16, CK_ACT_Q8_0, 1};
    case CK_WF_Q4_1:       return (ck_format_info){32, 20, 1, 1, 1, 1, 0, CK_SCALE_FP16, CK_ACT_Q8_1, 1};
    case CK_WF_Q5_0:       return (ck_format_info){32, 22, 1, 0, 1, 0, 16, CK_SCALE_FP16, CK_ACT_Q8_0, 1};
    case CK_WF_Q5_1:       return (ck_format_info){32, 24, 1, 0, 1, 1, 0, CK_SCALE_FP16, CK_ACT_Q8_1, 1};
    // IQ4_NL's int8 values plus 128 are u <= 241 (CK_IQ4_NL_U): repacked as its 4-bit codes.
    case CK_WF_IQ4_NL:     return (ck_format_info){32, 18, 1, 1, 1, 0, 128, CK_SCALE_FP16, CK_ACT_Q8_0, 1};
    // IQ4_XS: IQ4_NL's codes per 32 under d * (ls - 32), kept as an fp32 plane (exact: an 11-bit
    // significand times a 6-bit integer); llama.cpp pairs it with Q8_K.
    case CK_WF_IQ4_XS:     return (ck_format_info){256, 136, 1, 1, 1, 0, 128, CK_SCALE_FP16, CK_ACT_Q8_K, 0};
    case CK_WF_Q8_0:       return (ck_format_info){32, 34, 1, 0, 1, 0, 128, CK_SCALE_FP16, CK_ACT_Q8_0, 1};
    case CK_WF_Q4_K:       return (ck_format_info){256, 144, 1, 1, 1, 1, 0, CK_SCALE_FP16, CK_ACT_Q8_K, 0};
    case CK_WF_Q5_K:       return (ck_format_info){256, 176, 1, 0, 1, 1, 0, CK_SCALE_FP16, CK_ACT_Q8_K, 0};
    case CK_WF_Q6_K:       return (ck_format_info){256, 210, 1, 0, 2, 0, 32, CK_SCALE_FP16, CK_ACT_Q8_K, 0};
    // Q3_K's 3-bit values plus 4 (u <= 7), two scales per 32 as Q6_K; repacked as a 2-bit and
    // a 1-bit plane (CK_Q3_K_PACKED_BYTES, ck_weights).
    case CK_WF_Q3_K:       return (ck_format_info){256, 110, 1, 0, 2, 0, 4, CK_SCALE_FP16, CK_ACT_Q8_K, 0};
    case CK_WF_MXINT8:     return (ck_format_info){32, 33, 1, 0, 1, 0, 128, CK_SCALE_UE8M0, CK_ACT_Q8_32, 0};
    case CK_WF_MXFP8_E4M3: return (ck_format_info){32, 33, 0, 0, 0, 0, 0, CK_SCALE_UE8M0, CK_ACT_F32, 0};
    case CK_WF_MXFP8_E5M2: return (ck_format_info){32, 33, 0, 0, 0, 0, 0, CK_SCALE_UE8M0, CK_ACT_F32, 0};
    // E2M1 values doubled are the integers {0,1,2,3,4,6,8,12} with sign; +12 makes them unsigned.
    // Repacked as the 4-bit codes (packed4), which CK_MXFP4_U turns into those u.
    case CK_WF_MXFP4:      return (ck_format_info){32, 17, 1, 1, 1, 0, 12, CK_SCALE_UE8M0, CK_ACT_Q8_32, 0};
    default:               return (ck_format_info){0};
    }
}

/// Q5_0's and Q5_1's u: nibble j (low: element j, high: element 16 + j) with bit j of qh on top.
static inline void q5_values(const uint8_t qs[16], const uint8_t qh_bytes[4], uint8_t u[32]) {
    uint32_t qh;
    memcpy(&qh, qh_bytes, 4);
    for (int j = 0; j < 16; j++) {
        u[j] = (uint8_t)((qs[j] & 15) | (((qh >> j) & 1) << 4));
        u[j + 16] = (uint8_t)((qs[j] >> 4) | (((qh >> (j + 16)) & 1) << 4));
    }
}

/// The 16 code bytes of 32-block b of an IQ4_NL or IQ4_XS row (IQ4_XS: sub-block b % 8 of
/// super-block b / 8); *d = the block's scale (IQ4_XS: d * (ls - 32), exact in fp32).
static inline const uint8_t *iq4_block(ck_weight_format f, const void *row, int64_t b, float *d) {
    if (f == CK_WF_IQ4_NL) {
        const ck_block_iq4_nl *x = (const ck_block_iq4_nl *)row + b;
        *d = ck_fp16_to_fp32(x->d);
        return x->qs;
    }
    const ck_block_iq4_xs *x = (const ck_block_iq4_xs *)row + b / 8;
    *d = ck_fp16_to_fp32(x->d) * (float)(ck_iq4_xs_scale(x, (int)(b % 8)) - 32);
    return x->qs + 16 * (b % 8);
}

/// Whether f keeps only Q5_0's compact copy (qs_dec): its nibbles and bit-sliced fifth bits.
static inline int compact5(ck_weight_format f) { return f == CK_WF_Q5_0 || f == CK_WF_Q5_1 || f == CK_WF_Q5_K; }

/// Bytes of one repacked row scale in the dw / mw planes: ue8m0 codes, fp16 or fp32.
static int scale_bytes(const ck_format_info *info) {
    return info->e8m0_offset ? 1 : info->half_scales ? 2 : 4;
}

ck_format_info ck_weight_format_info(ck_weight_format f) {
    ck_format_info info = format_facts(f);
    info.kscale_rec = f == CK_WF_Q4_K || f == CK_WF_Q5_K ? CK_Q4_K_SCALE_REC : f == CK_WF_Q6_K || f == CK_WF_Q3_K ? CK_Q6_K_SCALE_REC : 0;
    info.code4 = f == CK_WF_MXFP4 || f == CK_WF_IQ4_NL || f == CK_WF_IQ4_XS;
    info.e8m0_offset = f == CK_WF_MXFP4 ? ck_e8m0_plane_offset(CK_SC_E8) : f == CK_WF_MXINT8 ? ck_e8m0_plane_offset(CK_SC_E8I)
                     : f == CK_WF_MXFP8_E4M3 || f == CK_WF_MXFP8_E5M2 ? CK_MXFP8_E8M0_OFFSET : 0;
    if (info.int8_path) {
        // Q5_0, Q5_1 and Q5_K keep only their compact copy (qs_dec), which every SIMD kernel reads.
        info.qs_block_bytes = compact5(f) ? 0 : f == CK_WF_Q6_K ? CK_Q6_K_PACKED_BYTES : f == CK_WF_Q3_K ? CK_Q3_K_PACKED_BYTES
                            : info.packed4 ? 256 : 512;
        info.repacked_block_bytes = (compact5(f) ? CK_Q5_0_COMPACT_BYTES : info.qs_block_bytes) +
                                    (info.kscale_rec ? info.kscale_rec / 8   // a record covers 8 blocks
                                                     : scale_bytes(&info) * CK_R * (1 + info.has_min));
    } else if (f == CK_WF_MXFP8_E4M3 || f == CK_WF_MXFP8_E5M2) {
        info.qs_block_bytes = 32 * CK_R;   // then a scale code per row, and E5M2's flag byte (ck_weights)
        info.repacked_block_bytes = info.qs_block_bytes + CK_R + (f == CK_WF_MXFP8_E5M2);
    } else if (f == CK_WF_F16 || f == CK_WF_BF16) {
        info.qs_block_bytes = info.repacked_block_bytes = 32 * CK_R * 2;   // the halves, no scales
    }
    return info;
}

const uint8_t *ck_code4_u(ck_weight_format f) {
    static const uint8_t mxfp4[16] = {CK_MXFP4_U}, iq4_nl[16] = {CK_IQ4_NL_U};
    return f == CK_WF_IQ4_NL || f == CK_WF_IQ4_XS ? iq4_nl : mxfp4;
}

/// 6-bit scale and min of sub-block j (0..7) of a Q4_K super-block.
static inline void scale_min_k4(int j, const uint8_t *q, int *sc, int *m) {
    if (j < 4) { *sc = q[j] & 63; *m = q[j + 4] & 63; }
    else { *sc = (q[j + 4] & 0x0F) | ((q[j - 4] >> 6) << 4); *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4); }
}

/// ue8m0 scale times 2^shift, NaN for the NaN code. Exact (fp32 subnormals included).
static inline float e8m0_scaled(uint8_t e, int shift) {
    return e == CK_E8M0_NAN ? NAN : ldexpf(1.0f, (int)e - 127 + shift);
}

void ck_decode_block32(ck_weight_format f, const void *row, int64_t b, uint8_t u[32], float *dw, float *mw) {
    // Called per row and 32-block at load: only the offset, not the derived sizes.
    const int off = format_facts(f).off;
    *dw = 0.0f;
    *mw = 0.0f;
    switch (f) {
    case CK_WF_Q4_0: {
        const ck_block_q4_0 *x = (const ck_block_q4_0 *)row + b;
        for (int j = 0; j < 16; j++) { u[j] = x->qs[j] & 15; u[j + 16] = x->qs[j] >> 4; }
        dw[0] = ck_fp16_to_fp32(x->d);
        break;
    }
    case CK_WF_Q4_1: {
        const ck_block_q4_1 *x = (const ck_block_q4_1 *)row + b;
        for (int j = 0; j < 16; j++) { u[j] = x->qs[j] & 15; u[j + 16] = x->qs[j] >> 4; }
        dw[0] = ck_fp16_to_fp32(x->d);
        *mw = ck_fp16_to_fp32(x->m);
        return;
    }
    case CK_WF_Q5_0: {
        const ck_block_q5_0 *x = (const ck_block_q5_0 *)row + b;
        q5_values(x->qs, x->qh, u);
        dw[0] = ck_fp16_to_fp32(x->d);
        break;
    }
    case CK_WF_Q5_1: {   // Q5_0's values with Q4_1's minimum
        const ck_block_q5_1 *x = (const ck_block_q5_1 *)row + b;
        q5_values(x->qs, x->qh, u);
        dw[0] = ck_fp16_to_fp32(x->d);
        *mw = ck_fp16_to_fp32(x->m);
        return;
    }
    case CK_WF_IQ4_NL: case CK_WF_IQ4_XS: {
        const uint8_t *code_u = ck_code4_u(f), *qs = iq4_block(f, row, b, dw);
        for (int j = 0; j < 16; j++) { u[j] = code_u[qs[j] & 15]; u[j + 16] = code_u[qs[j] >> 4]; }
        break;
    }
    case CK_WF_Q8_0: {
        const ck_block_q8_0 *x = (const ck_block_q8_0 *)row + b;
        for (int j = 0; j < 32; j++) u[j] = (uint8_t)(x->qs[j] + 128);
        dw[0] = ck_fp16_to_fp32(x->d);
        break;
    }
    case CK_WF_Q4_K: {
        // Sub-block j of super-block sb: chunk c = j/2, low nibbles for even j, high for odd.
        const ck_block_q4_K *x = (const ck_block_q4_K *)row + b / 8;
        const int j = (int)(b % 8), c = j / 2;
        for (int l = 0; l < 32; l++) u[l] = (j & 1) ? x->qs[32 * c + l] >> 4 : x->qs[32 * c + l] & 15;
        return;
    }
    case CK_WF_Q5_K: {
        // As Q4_K, plus the fifth bit of element l of sub-block j: bit j of qh[l].
        const ck_block_q5_K *x = (const ck_block_q5_K *)row + b / 8;
        const int j = (int)(b % 8), c = j / 2;
        for (int l = 0; l < 32; l++) {
            const int lo = (j & 1) ? x->qs[32 * c + l] >> 4 : x->qs[32 * c + l] & 15;
            u[l] = (uint8_t)(lo | (((x->qh[l] >> j) & 1) << 4));
        }
        return;
    }
    case CK_WF_Q6_K: {
        // Elements 32j..32j+31: half h = j/4 and run t = j%4 of ggml's dequantizer; run t takes
        // ql[l] (t even) or ql[l+32] (t odd), low (t<2) or high nibble, qh bits 2t..2t+1.
        const ck_block_q6_K *x = (const ck_block_q6_K *)row + b / 8;
        const int j = (int)(b % 8), h = j / 4, t = j % 4;
        const uint8_t *ql = x->ql + 64 * h + ((t & 1) ? 32 : 0), *qh = x->qh + 32 * h;
        for (int l = 0; l < 32; l++) {
            const int lo = t < 2 ? (ql[l] & 15) : (ql[l] >> 4);
            u[l] = (uint8_t)(lo | (((qh[l] >> (2 * t)) & 3) << 4));
        }
        return;
    }
    case CK_WF_Q3_K: {
        // Elements 32j..32j+31: two bits at 2(j%4) of qs[32(j/4) + l] under bit j of hmask[l]
        // (set: the value is those two bits; clear: minus 4), so u = value + 4 <= 7.
        const ck_block_q3_K *x = (const ck_block_q3_K *)row + b / 8;
        const int j = (int)(b % 8);
        const uint8_t *q = x->qs + 32 * (j / 4);
        for (int l = 0; l < 32; l++) u[l] = (uint8_t)(((q[l] >> (2 * (j % 4))) & 3) | (((x->hmask[l] >> j) & 1) << 2));
        return;
    }
    case CK_WF_MXINT8: {
        const ck_block_mxint8 *x = (const ck_block_mxint8 *)row + b;
        for (int j = 0; j < 32; j++) u[j] = (uint8_t)(x->qs[j] + 128);
        *dw = e8m0_scaled(x->e, -6);
        break;
    }
    case CK_WF_MXFP4: {
        static const uint8_t doubled_plus12[16] = {12, 13, 14, 15, 16, 18, 20, 24, 12, 11, 10, 9, 8, 6, 4, 0};
        const ck_block_mxfp4 *x = (const ck_block_mxfp4 *)row + b;
        for (int j = 0; j < 16; j++) {
            u[j] = doubled_plus12[x->qs[j] & 15];
            u[j + 16] = doubled_plus12[x->qs[j] >> 4];
        }
        *dw = e8m0_scaled(x->e, -1);
        break;
    }
    default:
        memset(u, 0, 32);
        return;
    }
    *mw = *dw * (float)(-off);
}

/// Whether format f keeps the float formats' band layout (MXFP8, F16, BF16; ck_weights).
static int banded(ck_weight_format f) {
    return f == CK_WF_MXFP8_E4M3 || f == CK_WF_MXFP8_E5M2 || f == CK_WF_F16 || f == CK_WF_BF16;
}

int64_t ck_repacked_groups(ck_weight_format f, int64_t n) {
    const int64_t rows = banded(f) ? CK_FLOAT_BAND : CK_R;
    return (n + rows - 1) / rows * (rows / CK_R);
}

void ck_repack_sizes(ck_weight_format f, int64_t n, int64_t k, size_t *qs_bytes, size_t *dw_bytes,
                     size_t *mw_bytes, size_t *dec_bytes) {
    const ck_format_info info = ck_weight_format_info(f);
    const size_t groups = (size_t)ck_repacked_groups(f, n), nb = (size_t)(k / 32);
    *dw_bytes = *mw_bytes = *dec_bytes = 0;
    *qs_bytes = groups * nb * (size_t)info.qs_block_bytes;   // none for F32 and the compact formats (qs_dec)
    if (compact5(f)) *dec_bytes = groups * nb * CK_Q5_0_COMPACT_BYTES;
    if (info.int8_path) {
        const size_t sb = (size_t)scale_bytes(&info);
        if (info.kscale_rec) {
            *dw_bytes = groups * (nb / 8) * (size_t)info.kscale_rec;
        } else {
            *dw_bytes = groups * nb * CK_R * sb;
            if (info.has_min) *mw_bytes = groups * nb * CK_R * sb;
        }
    } else if (f == CK_WF_MXFP8_E4M3 || f == CK_WF_MXFP8_E5M2) {
        *dw_bytes = groups * nb * CK_R;
        if (f == CK_WF_MXFP8_E5M2) *mw_bytes = groups * nb;
    }
}

void ck_kscales_of(ck_weight_format f, const void *row, int64_t sb, ck_kscales *out) {
    memset(out, 0, sizeof *out);
    if (f == CK_WF_Q4_K || f == CK_WF_Q5_K) {   // Q5_K: d, dmin and scales as Q4_K's
        const ck_block_q4_K *x = (const ck_block_q4_K *)((const uint8_t *)row + sb * (f == CK_WF_Q5_K ? sizeof(ck_block_q5_K) : sizeof(ck_block_q4_K)));
        out->d = x->d;
        out->dmin = x->dmin;
        for (int j = 0; j < 8; j++) {
            int sc, m;
            scale_min_k4(j, x->scales, &sc, &m);
            out->sc[j][0] = out->sc[j][1] = (int8_t)sc;
            out->m[j] = (uint8_t)m;
        }
    } else if (f == CK_WF_Q3_K) {
        const ck_block_q3_K *x = (const ck_block_q3_K *)row + sb;
        out->d = x->d;
        for (int j = 0; j < 8; j++)   // sub-blocks 2j, 2j + 1 are 32-block j's halves
            for (int half = 0; half < 2; half++) out->sc[j][half] = (int8_t)(ck_q3_K_scale(x, 2 * j + half) - 32);
    } else if (f == CK_WF_Q6_K) {
        const ck_block_q6_K *x = (const ck_block_q6_K *)row + sb;
        out->d = x->d;
        for (int j = 0; j < 8; j++)   // Q6_K's 16 scales are [32-block][half], as in the record
            for (int half = 0; half < 2; half++) out->sc[j][half] = x->scales[2 * j + half];
    }
}

/// The K-quant scale record (CK_Q4_K_SCALE_REC, CK_Q6_K_SCALE_REC) of group g, super-block sb:
/// the stored fp16 d (and dmin) and 6-bit (Q4_K, Q5_K) or int8 (Q6_K; Q3_K's code - 32) codes,
/// zero for padding rows.
static void repack_kscales(const ck_weights *w, const ck_format_info *info, int64_t g, int64_t sb) {
    uint8_t *rec = (uint8_t *)w->dw + (g * (w->k / 256) + sb) * info->kscale_rec;
    memset(rec, 0, (size_t)info->kscale_rec);
    ck_half *d = (ck_half *)rec;
    const int nsc = info->nsc;
    for (int r = 0; r < CK_R && g * CK_R + r < w->n; r++) {
        ck_kscales ks;
        ck_kscales_of(w->format, (const uint8_t *)w->raw + (g * CK_R + r) * w->raw_row_bytes, sb, &ks);
        d[r] = ks.d;
        if (nsc == 1) d[CK_R + r] = ks.dmin;
        for (int j = 0; j < 8; j++) {
            rec[ck_kscale_codes(j, 0, nsc) + r] = (uint8_t)ks.sc[j][0];
            if (nsc == 2) rec[ck_kscale_codes(j, 1, nsc) + r] = (uint8_t)ks.sc[j][1];
            else rec[ck_kscale_codes(j, 2, nsc) + r] = ks.m[j];
        }
    }
}

/// Packs 32-block b of one row straight into its repacked places (q: the group's block, r: the
/// row in it) for the formats whose stored bytes map onto the repacked ones a few bytes at a
/// time, giving the bytes and the d, m that ck_decode_block32 + the generic packing below give,
/// without the per-element u[32] round trip; returns 0 for the other formats. Sixteen or
/// thirty-two independent bytes per step, which the compiler turns into vector code. The
/// K-quants' scales go to their record, so for them only the values are packed here.
static int pack_direct(ck_weight_format f, const uint8_t *raw_row, int64_t b, uint8_t *q, int r, float *d, float *m) {
    const int j = (int)(b % 8);
    uint8_t nib[16];   // byte 4jj+i: u[4jj+i] & 15 | (u[16+4jj+i] & 15) << 4
    const uint8_t *a;
    int high;          // the values' low four bits are the stored bytes' high nibbles
    switch (f) {
    case CK_WF_Q4_0: case CK_WF_Q4_1: case CK_WF_IQ4_NL: case CK_WF_IQ4_XS: {   // u[e] | u[16+e] << 4 (IQ4: codes) is the stored byte qs[e]
        const uint8_t *qs;
        if (f == CK_WF_IQ4_NL || f == CK_WF_IQ4_XS) {
            qs = iq4_block(f, raw_row, b, d);
            *m = *d * -128.0f;
        } else if (f == CK_WF_Q4_0) {
            const ck_block_q4_0 *x = (const ck_block_q4_0 *)raw_row + b;
            qs = x->qs;
            *d = ck_fp16_to_fp32(x->d);
            *m = *d * -8.0f;
        } else {
            const ck_block_q4_1 *x = (const ck_block_q4_1 *)raw_row + b;
            qs = x->qs;
            d[0] = ck_fp16_to_fp32(x->d);
            *m = ck_fp16_to_fp32(x->m);
        }
        for (int jj = 0; jj < 4; jj++) memcpy(q + 64 * jj + 4 * r, qs + 4 * jj, 4);
        return 1;
    }
    case CK_WF_Q8_0: {   // byte layout: quad jj's row r holds u[4jj..4jj+3] = qs + 128
        const ck_block_q8_0 *x = (const ck_block_q8_0 *)raw_row + b;
        for (int jj = 0; jj < 8; jj++) {   // + 128 is a flip of each byte's top bit
            uint32_t v;
            memcpy(&v, x->qs + 4 * jj, 4);
            v ^= 0x80808080u;
            memcpy(q + 64 * jj + 4 * r, &v, 4);
        }
        *d = ck_fp16_to_fp32(x->d);
        *m = *d * -128.0f;
        return 1;
    }
    case CK_WF_Q4_K: {   // sub-block j: chunk j/2, low nibbles for even j, high for odd
        const ck_block_q4_K *x = (const ck_block_q4_K *)raw_row + b / 8;
        a = x->qs + 32 * (j / 2);
        high = j & 1;
        break;
    }
    case CK_WF_Q6_K: {   // half j/4, run t = j%4 as in ck_decode_block32
        const ck_block_q6_K *x = (const ck_block_q6_K *)raw_row + b / 8;
        const int h = j / 4, t = j % 4;
        a = x->ql + 64 * h + ((t & 1) ? 32 : 0);
        high = t >= 2;
        // Byte i of plane word jj is qh[4jj + i] (qh[16 + 4jj + i] for hi2): its bits 2t..2t+1
        // go to bits 2jj..2jj+1 of byte i, four bytes at once.
        const uint8_t *qh = x->qh + 32 * h;
        uint32_t lo2 = 0, hi2 = 0;
        for (int jj = 0; jj < 4; jj++) {
            uint32_t wl, wh;
            memcpy(&wl, qh + 4 * jj, 4);
            memcpy(&wh, qh + 16 + 4 * jj, 4);
            lo2 |= ((wl >> (2 * t)) & 0x03030303u) << (2 * jj);
            hi2 |= ((wh >> (2 * t)) & 0x03030303u) << (2 * jj);
        }
        memcpy(q + 256 + 4 * r, &lo2, 4);
        memcpy(q + 320 + 4 * r, &hi2, 4);
        break;
    }
    default:
        return 0;
    }
    // Eight bytes per 64-bit word: nib[e] = a[e] & 15 | a[16+e] << 4 (or the high nibbles), the
    // shifts masked so no bit crosses into a neighbouring byte.
    for (int h8 = 0; h8 < 2; h8++) {
        uint64_t lo, hi, v;
        memcpy(&lo, a + 8 * h8, 8);
        memcpy(&hi, a + 16 + 8 * h8, 8);
        v = high ? ((lo >> 4) & 0x0F0F0F0F0F0F0F0Full) | (hi & 0xF0F0F0F0F0F0F0F0ull)
                 : (lo & 0x0F0F0F0F0F0F0F0Full) | ((hi << 4) & 0xF0F0F0F0F0F0F0F0ull);
        memcpy(nib + 8 * h8, &v, 8);
    }
    for (int jj = 0; jj < 4; jj++) memcpy(q + 64 * jj + 4 * r, nib + 4 * jj, 4);
    return 1;
}

void ck_repack_rows(const ck_weights *w, int64_t n0, int64_t n1) {
    const ck_format_info info = ck_weight_format_info(w->format);
    const int64_t nb = w->k / 32;
    if (!info.int8_path) {
        if (!w->qs) return;   // F32: sgemm reads raw
        // The slice that reaches the last row also zeroes the band's padding rows.
        const int64_t end = n1 >= w->n ? ck_repacked_groups(w->format, w->n) * CK_R : (n1 + CK_R - 1) / CK_R * CK_R;
        if (w->format == CK_WF_MXFP8_E4M3 || w->format == CK_WF_MXFP8_E5M2) {
            const int e4m3 = w->format == CK_WF_MXFP8_E4M3;
            uint8_t *scale_codes = (uint8_t *)w->dw, *specials = (uint8_t *)w->mw;
            for (int64_t row = n0; row < end; row++)
                for (int64_t b = 0; b < nb; b++) {
                    const ck_block_mxfp8 *blk = row < w->n ? (const ck_block_mxfp8 *)((const uint8_t *)w->raw + row * w->raw_row_bytes) + b : NULL;
                    uint8_t e = blk ? blk->e : 0, special = 0;
                    for (int i = 0; i < 32; i++) {
                        const uint8_t code = blk ? blk->qs[i] : 0;
                        if (e4m3 && (code & 0x7F) == 0x7F) e = 255;   // the kernels read this code as 480: a NaN scale
                        if (!e4m3 && (code & 0x7C) == 0x7C) special = 1;   // an E5M2 infinity or NaN
                        w->qs[ck_float_value_index(nb, row, b, i)] = code;
                    }
                    const int64_t at = ck_float_scale_index(nb, row, b);
                    scale_codes[at] = e;
                    if (!e4m3) {   // [band][block][4]: a flag per 16-row group (the slices start at groups)
                        if (row % CK_R == 0) specials[at / CK_R] = 0;
                        specials[at / CK_R] |= special;
                    }
                }
        } else {   // F16, BF16
            uint16_t *h = (uint16_t *)w->qs;
            for (int64_t row = n0; row < end; row++) {
                const uint16_t *src = row < w->n ? (const uint16_t *)((const uint8_t *)w->raw + row * w->raw_row_bytes) : NULL;
                for (int64_t b = 0; b < nb; b++)
                    for (int i = 0; i < 32; i++) h[ck_float_value_index(nb, row, b, i)] = src ? src[b * 32 + i] : 0;
            }
        }
        return;
    }
    const int64_t qbytes = info.qs_block_bytes;
    for (int64_t g = n0 / CK_R; g * CK_R < n1; g++) {
        for (int64_t b = 0; b < nb; b++) {
            uint8_t *q = qbytes ? w->qs + (g * nb + b) * qbytes : NULL;
            const int64_t si = (g * nb + b) * CK_R;   // the block's 16 scales in dw (and mw)
            if (info.kscale_rec && b % 8 == 0) repack_kscales(w, &info, g, b / 8);
            for (int r = 0; r < CK_R; r++) {
                const int64_t row = g * CK_R + r;
                uint8_t u[32] = {0};
                float d = 0, m = 0;
                uint8_t e8m0 = 0;   // padding rows: codes and scale code 0 (their outputs are not stored)
                int packed = 0;   // values already in q (pack_direct)
                if (row < w->n) {
                    const uint8_t *raw_row = (const uint8_t *)w->raw + row * w->raw_row_bytes;
                    if (q) packed = pack_direct(w->format, raw_row, b, q, r, &d, &m);
                    if (packed) {
                        // d and m are set; the values are in place
                    } else if (info.code4) {   // MXFP4: the stored codes, not u
                        const ck_block_mxfp4 *x = (const ck_block_mxfp4 *)raw_row + b;
                        for (int j = 0; j < 16; j++) { u[j] = x->qs[j] & 15; u[j + 16] = x->qs[j] >> 4; }
                    } else {
                        ck_decode_block32(w->format, raw_row, b, u, &d, &m);
                    }
                    // MXFP4 and MXINT8 keep their stored scale codes, the first byte of each block.
                    if (info.e8m0_offset) e8m0 = raw_row[b * info.block_bytes];
                }
                if (w->qs_dec) {   // Q5_0 compact copy: nibbles, then the bit-sliced fifth bits
                    uint8_t *c = w->qs_dec + (g * nb + b) * CK_Q5_0_COMPACT_BYTES;
                    uint8_t *bits = c + 256 + 32 * (r / 8) + 4 * (r % 8);
                    for (int j = 0; j < 4; j++)
                        for (int i = 0; i < 4; i++) {
                            c[64 * j + 4 * r + i] = (uint8_t)((u[4 * j + i] & 15) | ((u[16 + 4 * j + i] & 15) << 4));
                            if (j == 0) bits[i] = 0;
                        }
                    for (int j = 0; j < 4; j++)
                        for (int i = 0; i < 4; i++)
                            bits[i] |= (uint8_t)(((u[4 * j + i] >> 4) << j) | ((u[16 + 4 * j + i] >> 4) << (4 + j)));
                }
                if (!q || packed) {
                    // Q5_0: the compact copy above is all; pack_direct: done
                } else if (w->format == CK_WF_Q6_K) {   // nibbles as packed4, then two 2-bit planes
                    uint8_t *lo2 = q + 256 + 4 * r, *hi2 = q + 320 + 4 * r;
                    for (int j = 0; j < 4; j++)
                        for (int i = 0; i < 4; i++) {
                            q[64 * j + 4 * r + i] = (uint8_t)((u[4 * j + i] & 15) | ((u[16 + 4 * j + i] & 15) << 4));
                            if (j == 0) lo2[i] = hi2[i] = 0;
                            lo2[i] |= (uint8_t)((u[4 * j + i] >> 4) << (2 * j));
                            hi2[i] |= (uint8_t)((u[16 + 4 * j + i] >> 4) << (2 * j));
                        }
                } else if (w->format == CK_WF_Q3_K) {   // a 2-bit plane, then the third bits (ck_weights)
                    uint8_t *top = q + 128 + 4 * r;
                    for (int j = 0; j < 4; j++)
                        for (int i = 0; i < 4; i++) {
                            uint8_t *two = q + 64 * (j / 2) + 4 * r + i;
                            if (j % 2 == 0) *two = 0;
                            if (j == 0) top[i] = 0;
                            *two |= (uint8_t)(((u[4 * j + i] & 3) | ((u[16 + 4 * j + i] & 3) << 2)) << (4 * (j % 2)));
                            top[i] |= (uint8_t)(((u[4 * j + i] >> 2) << j) | ((u[16 + 4 * j + i] >> 2) << (4 + j)));
                        }
                } else if (info.packed4) {
                    for (int j = 0; j < 4; j++)
                        for (int i = 0; i < 4; i++) q[64 * j + 4 * r + i] = (uint8_t)(u[4 * j + i] | (u[16 + 4 * j + i] << 4));
                } else {
                    for (int j = 0; j < 8; j++)
                        for (int i = 0; i < 4; i++) q[64 * j + 4 * r + i] = u[4 * j + i];
                }
                if (info.kscale_rec) continue;   // the record above holds the scales
                if (info.e8m0_offset) { ((uint8_t *)w->dw)[si + r] = e8m0; continue; }
                if (info.half_scales) ((ck_half *)w->dw)[si + r] = ck_fp32_to_fp16(d);
                else ((float *)w->dw)[si + r] = d;
                if (info.has_min) {
                    if (info.half_scales) ((ck_half *)w->mw)[si + r] = ck_fp32_to_fp16(m);
                    else ((float *)w->mw)[si + r] = m;
                }
            }
        }
    }
}

void ck_byte_layout_block(const ck_weights *w, int64_t g, int64_t b, uint8_t out[512]) {
    const ck_format_info info = ck_weight_format_info(w->format);
    const int64_t nb = w->k / 32, i0 = g * nb + b;
    if (w->format == CK_WF_Q6_K) {   // nibbles under their 2-bit planes (ck_weights)
        const uint8_t *q = w->qs + i0 * CK_Q6_K_PACKED_BYTES;
        for (int j = 0; j < 4; j++)
            for (int x = 0; x < 64; x++) {
                out[64 * j + x] = (uint8_t)((q[64 * j + x] & 15) | (((q[256 + x] >> (2 * j)) & 3) << 4));
                out[64 * (4 + j) + x] = (uint8_t)((q[64 * j + x] >> 4) | (((q[320 + x] >> (2 * j)) & 3) << 4));
            }
        return;
    }
    if (w->format == CK_WF_Q3_K) {   // the 2-bit fields under their third bits (ck_weights)
        const uint8_t *q = w->qs + i0 * CK_Q3_K_PACKED_BYTES;
        for (int j = 0; j < 4; j++)
            for (int x = 0; x < 64; x++)
                for (int hi = 0; hi < 2; hi++)
                    out[64 * (4 * hi + j) + x] = (uint8_t)(((q[64 * (j / 2) + x] >> (4 * (j % 2) + 2 * hi)) & 3) |
                                                           (((q[128 + x] >> (j + 4 * hi)) & 1) << 2));
        return;
    }
    if (w->qs && !info.packed4) { memcpy(out, w->qs + i0 * 512, 512); return; }
    if (w->qs) {   // packed4: quad j's low nibbles are quad j, its high nibbles quad 4 + j
        static const uint8_t identity[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
        const uint8_t *u = info.code4 ? ck_code4_u(w->format) : identity;
        const uint8_t *q = w->qs + i0 * 256;
        for (int j = 0; j < 4; j++)
            for (int x = 0; x < 64; x++) {
                out[64 * j + x] = u[q[64 * j + x] & 15];
                out[64 * (4 + j) + x] = u[q[64 * j + x] >> 4];
            }
        return;
    }
    // Q5_0's compact copy (see ck_repack_sizes): nibbles plus the bit-sliced fifth bits.
    const uint8_t *c = w->qs_dec + i0 * CK_Q5_0_COMPACT_BYTES;
    for (int r = 0; r < CK_R; r++) {
        const uint8_t *bits = c + 256 + 32 * (r / 8) + 4 * (r % 8);
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < 4; i++) {
                const uint8_t nib = c[64 * j + 4 * r + i];
                out[64 * j + 4 * r + i] = (uint8_t)((nib & 15) | (((bits[i] >> j) & 1) << 4));
                out[64 * (4 + j) + 4 * r + i] = (uint8_t)((nib >> 4) | (((bits[i] >> (4 + j)) & 1) << 4));
            }
    }
}
