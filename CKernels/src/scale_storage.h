// How a repacked weight's row scales are stored (ck_weights.dw/mw, see ck_matmul.h); a kernel
// template parameter, so each format's kernel reads its own storage with no runtime test.
#ifndef CK_SCALE_STORAGE_H
#define CK_SCALE_STORAGE_H

#include "ck_matmul.h"

/// fp32 planes (IQ4_XS), fp16 planes (the fp16-scaled legacy formats), the K-quants' records of
/// stored d, dmin and codes (CK_Q4_K_SCALE_REC, CK_Q6_K_SCALE_REC), or a plane of ue8m0 codes
/// whose scale is 2^(e - 128) (CK_SC_E8, MXFP4: the block's 2^(e - 127) halved for the doubled
/// values) or 2^(e - 133) (CK_SC_E8I, MXINT8: the block's 2^(e - 127) times its elements' 2^-6).
enum { CK_SC_F32, CK_SC_F16, CK_SC_K, CK_SC_E8, CK_SC_E8I };

/// The exponent offset of a ue8m0 plane's scale 2^(e - offset) (ck_format_info.e8m0_offset).
static inline int ck_e8m0_plane_offset(const int SC) { return SC == CK_SC_E8I ? 133 : 128; }

/// The exponent offset of MXFP8's repacked scale codes: 2^(e - 127), the OCP MX block scale
/// itself (E4M3 and E5M2 values carry their own exponents; ck_weights).
enum { CK_MXFP8_E8M0_OFFSET = 127 };

/// Bytes of one scale in a dw or mw plane stored as SC (not CK_SC_K, whose scales are records).
static inline int64_t ck_plane_scale_bytes(const int SC) {
    return SC == CK_SC_F16 ? 2 : SC == CK_SC_E8 || SC == CK_SC_E8I ? 1 : 4;
}

/// Bytes per 32-block of one 16-row group in the dw stream: a K record covers 8 blocks (NSC: 2
/// for Q6_K's and Q3_K's), a plane holds one scale per row. The kernels stride their prefetches by it.
static inline int64_t ck_dw_block_bytes(const int NSC, const int SC) {
    return SC == CK_SC_K ? (NSC == 2 ? CK_Q6_K_SCALE_REC : CK_Q4_K_SCALE_REC) / 8 : CK_R * ck_plane_scale_bytes(SC);
}

/// Bytes per 32-block of one group in the mw plane: 0 without a stored minimum, and for the
/// K-quants, whose dmin lives in their records.
static inline int64_t ck_mw_block_bytes(const int HASMIN, const int SC) {
    return HASMIN && SC != CK_SC_K ? CK_R * ck_plane_scale_bytes(SC) : 0;
}

/// fp32 bits of 2^(e - offset) for a ue8m0 code e (offset 128 or 133), NaN for the NaN code
/// 255: (e - offset + 127) << 23 where that is a normal number (e >= offset - 126), else the
/// subnormal 2^(e - offset + 149) ulps ((1 << (149 - offset)) << e). The SIMD twins compute the
/// same three cases on vectors.
static inline uint32_t ck_e8m0_bits(uint8_t e, int offset) {
    return e == 255 ? 0x7FC00000u : e >= offset - 126 ? (uint32_t)(e - offset + 127) << 23 : (1u << (149 - offset)) << e;
}

/// Start of the K-quant record holding 32-block b of group g (nb blocks per row). NSC: 2 for Q6_K.
static inline const uint8_t *ck_kscale_record(const void *dw, int64_t nb, int64_t g, int64_t b, const int NSC) {
    return (const uint8_t *)dw + (g * (nb / 8) + b / 8) * (NSC == 2 ? CK_Q6_K_SCALE_REC : CK_Q4_K_SCALE_REC);
}

/// Offset in a K record of the 16 codes of 32-block j (0..7) that multiply d (which = 0; Q6_K's
/// second half-block: which = 1) or dmin (Q4_K, which = 2); the fp16 factor is at 32 * (which == 2).
static inline int ck_kscale_codes(int j, int which, const int NSC) {
    return NSC == 2 ? 32 + 32 * j + 16 * which : 64 + 128 * (which == 2) + 16 * j;
}

#endif
