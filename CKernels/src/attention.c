// Grouped-query attention over the KV cache (ck_ops.h): chooses the kernel, the active path's
// table supplies it. Prefill (>= CK_TILED_MIN_ROWS rows) runs the table's prefill attention (the
// blocked kernel of attention_tiled.c on the SIMD paths); one decode row runs split-K
// (attention_split.c); 2-3 rows, or a decode row with too little scratch, take one (query row,
// head) pair as the unit of work (attention_heads.c). The choice never depends on the thread
// count, so neither do the results.
#include "ck_ops.h"
#include "ck_matmul.h"
#include "attention_heads.h"
#include "attention_split_unit.h"
#include "attention_tiled.h"

/// Query rows from which the prefill attention takes over.
#define CK_TILED_MIN_ROWS 4

int64_t ck_attention_scratch_floats(int64_t capacity, int64_t head_dim) {
    const int64_t per_head = capacity + head_dim;   // attention_heads.c: weights [capacity], a decoded row
    const int64_t split = ck_attention_split_scratch_floats(capacity, head_dim);
    const int64_t tiled = ck_attention_tiled_scratch_floats(head_dim);
    const int64_t most = split > tiled ? split : tiled;
    return most > per_head ? most : per_head;
}

void ck_attention(const ck_attention_desc *d, int nthreads) {
    const ck_path_kernels *k = ck_kernels(ck_kernel_path_get());
    if (d->rows == 1 && ck_attention_split_k_with(d, nthreads, k)) return;
    if (d->rows >= CK_TILED_MIN_ROWS) k->attention_prefill(d, nthreads, k);
    else ck_attention_heads(d, nthreads, k);
}
