// Private to the attention kernels: attention one (query row, head) pair at a time
// (attention_heads.c): decoded rows that do not go split-K, and prompt rows the blocked kernel
// cannot take (a head dim that is not a multiple of 8).
#ifndef CK_ATTENTION_HEADS_H
#define CK_ATTENTION_HEADS_H

#include <stdint.h>
#include "ck_matmul.h"

/// Where one (query row, head) reads and writes.
typedef struct ck_head_job {
    const float *q;
    const uint8_t *k, *v;        // first position's row, already offset to the KV head
    int64_t row_bytes, head_dim, first, last;
    ck_kv_format format;
    float *w;                    // softmax weights, indexed by position
    float *tmp;                  // head_dim floats for decoded rows
    float *out;
} head_job;

/// Scalar: rows decoded by ck_kv_load_row, the canonical exp (exp_scalar.h), any format and
/// head_dim; every path's kernel for the block formats.
void ck_attention_head_ref(const head_job *j);
/// fp16 rows in ck_attention_head_f16_avx2's order, scalar (attention_ref.c): ref's.
void ck_attention_head_f16_ref(const head_job *j);
/// fp16 rows with AVX2/F16C and the vector exp (head_dim not a multiple of 8: the scalar kernel).
void ck_attention_head_f16_avx2(const head_job *j);

/// Every (query row, head) pair of `d`, split over the threads, each through the table's
/// attention_head kernel for the cache format.
void ck_attention_heads(const ck_attention_desc *d, int nthreads, const ck_path_kernels *k);

#endif
