// Private to the attention kernels: the per-head kernel (attention_heads.c), which takes one
// decoded query row over a short fp16 context (fewer than CK_SPLIT_MIN_POSITIONS visible
// positions, a head dim that is a multiple of 8; attention.c sends every other row split-K).
#ifndef CK_ATTENTION_HEADS_H
#define CK_ATTENTION_HEADS_H

#include <stdint.h>
#include "ck_matmul.h"

/// Where the query heads of a row that read one KV head (some or all of them) read and write.
typedef struct ck_head_job {
    const float *q;              // [heads][head_dim], consecutive query heads
    const uint8_t *k, *v;        // the first visible position's fp16 row, offset to the KV head
    int64_t row_bytes, head_dim; // head_dim a multiple of 8
    int64_t n;                   // visible positions, 1 ..< CK_SPLIT_MIN_POSITIONS
    int64_t heads;               // query heads, >= 1
    float *w;                    // [heads][n] scores, then softmax weights
    float *tmp;                  // [head_dim] one decoded row (the scalar kernel)
    float *out;                  // [heads][head_dim]
    const uint8_t *next_k, *next_v; // the thread's next job's rows, prefetched during this one (NULL: none)
    int64_t next_n;              // its positions
} head_job;

/// Runs `one` on each of the job's heads alone (its q, w and out offset to the head): the
/// kernels that read K and V once per head.
static inline void ck_head_job_each(const head_job *j, void (*one)(const head_job *)) {
    for (int64_t h = 0; h < j->heads; h++) {
        head_job single = *j;
        single.q = j->q + h * j->head_dim;
        single.w = j->w + h * j->n;
        single.out = j->out + h * j->head_dim;
        single.heads = 1;
        one(&single);
    }
}

/// ck_attention_head_f16_avx2's order in scalar C (attention_ref.c): ref's.
void ck_attention_head_f16_ref(const head_job *j);
/// AVX2/F16C and the vector exp.
void ck_attention_head_f16_avx2(const head_job *j);

/// Floats of scratch per thread that ck_attention_heads needs for positions below `capacity` and
/// `heads` query heads.
int64_t ck_attention_heads_scratch_floats(int64_t capacity, int64_t heads, int64_t head_dim);

/// Every query head of `count` decoded rows (each desc of one row, rows == 1, with its own
/// cache, positions and scratch), the (row, head) units split over the threads in one parallel
/// region; each thread's consecutive heads on one KV head are one job of the table's
/// attention_head_f16 kernel.
void ck_attention_heads(const ck_attention_desc *rows, int64_t count, int nthreads, const ck_path_kernels *k);

#endif
