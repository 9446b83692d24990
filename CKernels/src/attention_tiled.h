// Private to the attention kernels: the blocked prefill attention (attention_tiled.c), which the
// SIMD paths' kernel tables name for batches of 4 or more query rows.
#ifndef CK_ATTENTION_TILED_H
#define CK_ATTENTION_TILED_H

#include "ck_matmul.h"

/// Runs `d` with the blocked kernel, its FMA phases those of kernel table k; a head_dim that is
/// not a multiple of 8 or a scratch_stride below ck_attention_tiled_scratch_floats goes to the
/// per-head kernel (attention_heads.h).
void ck_attention_tiled(const ck_attention_desc *d, int nthreads, const ck_path_kernels *k);

/// Floats of scratch per thread that ck_attention_tiled needs (independent of the depth).
int64_t ck_attention_tiled_scratch_floats(int64_t head_dim);

#endif
