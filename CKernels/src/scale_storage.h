// How a repacked weight's row scales are stored (ck_weights.dw/mw, see ck_matmul.h); a kernel
// template parameter, so each format's kernel reads its own storage with no runtime test.
#ifndef CK_SCALE_STORAGE_H
#define CK_SCALE_STORAGE_H

#include "ck_matmul.h"

/// fp32 planes (MX formats), fp16 planes (the fp16-scaled legacy formats), or the K-quants'
/// records of stored d, dmin and codes (CK_Q4_K_SCALE_REC, CK_Q6_K_SCALE_REC).
enum { CK_SC_F32, CK_SC_F16, CK_SC_K };

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
