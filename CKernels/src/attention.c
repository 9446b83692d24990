// Grouped-query attention over the KV cache (ck_ops.h): chooses the kernel, the active path's
// table supplies it. The rows' kind decides, never their count: prompt rows run the table's
// prefill attention (the blocked kernel of attention_tiled.c, whose every row's sums depend on
// that row alone), each decoded row runs alone, split-K (attention_split.c) except over a short
// fp16 context, where each query head of the row is one unit of work (attention_heads.c). So a
// prompt row gives the same bits in a chunk of 1 or 512 rows, and a decoded row the same bits
// whichever rows share its call. No choice depends on the thread count, so neither do the results.
#pragma STDC FP_CONTRACT OFF
#include <stdio.h>
#include <stdlib.h>
#include "ck_ops.h"
#include "ck_matmul.h"
#include "attention_heads.h"
#include "attention_split_unit.h"
#include "attention_tiled.h"

/// Positions the one query row of d sees (its window, or everything up to it).
static int64_t visible(const ck_attention_desc *d) {
    const int64_t all = d->positions[0] + 1;
    return d->window > 0 && d->window < all ? d->window : all;
}

/// Row r of d's rows as a call of its own.
static ck_attention_desc row_of(const ck_attention_desc *d, int64_t r) {
    ck_attention_desc one = *d;
    one.q = d->q + r * d->q_stride;
    one.out = d->out + r * d->out_stride;
    one.positions = d->positions + r;
    one.rows = 1;
    return one;
}

/// Whether a decoded row (d of one row) goes split-K: block formats always (their only decode
/// kernel), fp16 from CK_SPLIT_MIN_POSITIONS visible positions (below, the per-head kernel's one
/// pass costs less than split-K's ranges and merge) or with a head dim the per-head kernel's
/// vectors of eight dims do not cover. Its positions and shape decide, never the thread count.
static int wants_split(const ck_attention_desc *d) {
    return d->format != CK_KV_F16 || d->head_dim % 8 != 0 || visible(d) >= CK_SPLIT_MIN_POSITIONS;
}

int64_t ck_attention_scratch_floats(int64_t capacity, int64_t heads, int64_t head_dim) {
    const int64_t per_head = ck_attention_heads_scratch_floats(capacity, heads, head_dim);
    const int64_t split = ck_attention_split_scratch_floats(capacity, heads, head_dim);
    const int64_t tiled = ck_attention_tiled_scratch_floats(head_dim);
    const int64_t most = split > tiled ? split : tiled;
    return most > per_head ? most : per_head;
}

/// A caller that gave less scratch than ck_attention_scratch_floats: a programming error, stopped
/// with one line rather than written past.
static void scratch_too_small(const ck_attention_desc *d) {
    fprintf(stderr, "ck_attention: scratch_stride %lld is below ck_attention_scratch_floats(capacity, %lld, %lld)\n",
            (long long)d->scratch_stride, (long long)d->heads, (long long)d->head_dim);
    abort();
}

/// The calls of `descs` with kernel table k, resolved once by the caller: prompt rows per call
/// through the table's prefill kernel, each decoded row alone, split-K or (short fp16 contexts)
/// per head, where the per-head rows of every call share one parallel region (a batched decode
/// step brings one row per sequence, each over its own cache).
static void attention_with(const ck_attention_desc *descs, int64_t count, int nthreads, const ck_path_kernels *k) {
    if (nthreads < 1) nthreads = 1;
    int64_t decoded = 0;   // room for every decoded row, of which the per-head ones are kept
    for (int64_t i = 0; i < count; i++) if (descs[i].kind != CK_ROWS_PROMPT) decoded += descs[i].rows;
    ck_attention_desc few[16];
    ck_attention_desc *rows = decoded <= 16 ? few : malloc((size_t)decoded * sizeof *rows);
    if (!rows) { fprintf(stderr, "ck_attention: out of memory for %lld rows\n", (long long)decoded); abort(); }
    int64_t per_head = 0;
    for (int64_t i = 0; i < count; i++) {
        const ck_attention_desc *d = &descs[i];
        if (d->kind == CK_ROWS_PROMPT) {
            if (d->scratch_stride < ck_attention_tiled_scratch_floats(d->head_dim)) scratch_too_small(d);
            k->attention_prefill(d, nthreads, k);
            continue;
        }
        for (int64_t r = 0; r < d->rows; r++) {
            const ck_attention_desc one = row_of(d, r);
            if (!wants_split(&one)) {
                if (d->scratch_stride < ck_attention_heads_scratch_floats(visible(&one), d->heads, d->head_dim)) scratch_too_small(d);
                rows[per_head++] = one;
            } else if (!ck_attention_split_k_with(&one, nthreads, k)) scratch_too_small(d);
        }
    }
    if (per_head > 0) ck_attention_heads(rows, per_head, nthreads, k);
    if (rows != few) free(rows);
}

void ck_attention(const ck_attention_desc *d, int nthreads, int path) { attention_with(d, 1, nthreads, ck_kernels_for_path(path)); }

void ck_attention_batch(const ck_attention_desc *descs, int64_t count, int nthreads, int path) {
    attention_with(descs, count, nthreads, ck_kernels_for_path(path));
}

int ck_attention_on(const ck_attention_desc *d, int nthreads, int path) {
    if (!ck_kernel_path_supported(path)) return 0;
    attention_with(d, 1, nthreads, ck_kernels((ck_kernel_path)path));
    return 1;
}
