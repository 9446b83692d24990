// Private to the attention kernels (attention.c, attention_split.c, attention_tiled.c).
#ifndef CK_ATTENTION_INTERNAL_H
#define CK_ATTENTION_INTERNAL_H

#include "ck_ops.h"
#include "ck_matmul.h"

/// Runs `d` with the blocked kernel (attention_tiled.c), its FMA phases those of `path`'s kernel
/// table; returns 0 (doing nothing) when it cannot: head_dim not a multiple of 8 or
/// scratch_stride below ck_attention_scratch_floats.
int ck_attention_tiled(const ck_attention_desc *d, int nthreads, ck_kernel_path path);

/// Floats of scratch per thread that ck_attention_tiled needs (independent of the depth).
int64_t ck_attention_tiled_scratch_floats(int64_t head_dim);

/// Floats of scratch per thread that ck_attention_split_k needs for positions below `capacity`
/// (for up to 32 query heads).
int64_t ck_attention_split_scratch_floats(int64_t capacity, int64_t head_dim);

#endif
