// Private: the ARM64 row ops, KV stores and decode attention kernels (aarch64 only) that the ARM
// paths' kernel tables name (kernel_table.c). Each gives the reference's bits (ck_ops.h's
// contracts; docs/arm64.md).
#ifndef CK_KERNELS_NEON_H
#define CK_KERNELS_NEON_H

#include <stdint.h>
#include "attention_split_unit.h"
#include "attention_heads.h"

/// rows_neon.c: ck_swiglu_ref, ck_geglu_ref and ck_rms_norm_vectors_ref on NEON.
void ck_swiglu_neon(float *gate, const float *up, int64_t n);
void ck_geglu_neon(float *gate, const float *up, int64_t n);
void ck_rms_norm_vectors_neon(const float *x, const float *w, float *y, int64_t count, int64_t width, float eps);

/// kv_store_neon.c: one fp32 row into an fp16 (FCVTN), q8_0 or MXFP8 E4M3 cache row, the bytes
/// of ck_kv_store_f16_ref, ck_kv_store_q8_0_ref and ck_kv_store_mxfp8_e4m3.
void ck_kv_store_f16_neon(const float *x, void *row, int64_t n);
void ck_kv_store_q8_0_neon(const float *x, void *row, int64_t n);
void ck_kv_store_mxfp8_e4m3_neon(const float *x, void *row, int64_t n);

/// attention_split_neon.c: the split-K unit over fp16 (head_dim not a multiple of 8 goes to the
/// scalar unit) and MXFP8 E4M3 caches, ck_attention_split_ref's bits.
void ck_attention_split_f16_neon(const range_job *j);
void ck_attention_split_mxfp8_neon(const range_job *j);
/// attention_head_neon.c: the per-head kernel over a short fp16 context, ck_attention_head_f16_ref's
/// bits.
void ck_attention_head_f16_neon(const struct ck_head_job *j);

#endif
