// Private to the attention kernels: the blocked prefill attention (attention_tiled.c), which every
// kernel table names for prompt rows.
#ifndef CK_ATTENTION_TILED_H
#define CK_ATTENTION_TILED_H

#include <stdint.h>
#include "ck_matmul.h"

/// Runs `d` (scratch_stride at least ck_attention_tiled_scratch_floats) with the blocked kernel,
/// its FMA phases those of kernel table k; a head_dim that is not a multiple of 8 (the 8-lane
/// tiles' and row decoders' width) runs ref's portable phases, which compute the same sums.
void ck_attention_tiled(const ck_attention_desc *d, int nthreads, const ck_path_kernels *k);

/// ck_attention_tiled compiled without target attributes around the table's phases (ref's, on
/// any x86-64).
void ck_attention_tiled_portable(const ck_attention_desc *d, int nthreads, const ck_path_kernels *k);

/// K/V rows p0..p0+n-1 of one KV head (base offset to it) decoded to fp32 into dst[n][hd]: AVX2
/// (attention_tiled.c) and scalar (attention_ref.c), ck_kv_load_row's values either way.
void ck_attention_rows_avx2(const ck_attention_desc *d, const uint8_t *base, int64_t p0, int64_t n, float *dst);
void ck_attention_rows_ref(const ck_attention_desc *d, const uint8_t *base, int64_t p0, int64_t n, float *dst);

/// Floats of scratch per thread that ck_attention_tiled needs (independent of the depth).
int64_t ck_attention_tiled_scratch_floats(int64_t head_dim);

#endif
