// Private: the ARM64 row ops (aarch64 only) that the ARM paths' kernel tables name (kernel_table.c). Each gives the reference's bits (ck_ops.h's
// contracts; docs/arm64.md).
#ifndef CK_KERNELS_NEON_H
#define CK_KERNELS_NEON_H

#include <stdint.h>

/// rows_neon.c: ck_swiglu_ref, ck_geglu_ref and ck_rms_norm_vectors_ref on NEON.
void ck_swiglu_neon(float *gate, const float *up, int64_t n);
void ck_geglu_neon(float *gate, const float *up, int64_t n);
void ck_rms_norm_vectors_neon(const float *x, const float *w, float *y, int64_t count, int64_t width, float eps);

#endif
