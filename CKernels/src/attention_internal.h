// Private to attention.c / attention_tiled.c.
#ifndef CK_ATTENTION_INTERNAL_H
#define CK_ATTENTION_INTERNAL_H

#include "ck_ops.h"

/// Runs `d` with the blocked AVX2 kernel (attention_tiled.c); returns 0 (doing nothing) when it
/// cannot: head_dim not a multiple of 8 or scratch_stride below ck_attention_scratch_floats.
int ck_attention_tiled(const ck_attention_desc *d, int nthreads);

#endif
