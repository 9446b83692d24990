// Private to split-K decode attention (attention_split.c, the driver) and its units (one per
// path and cache format, named by the kernel tables): what a unit reads and writes, and the
// units themselves.
#ifndef CK_ATTENTION_SPLIT_UNIT_H
#define CK_ATTENTION_SPLIT_UNIT_H

#include <stdint.h>
#include "ck_ops.h"
#include "ck_matmul.h"
#include "attention_prefetch.h"

/// ck_attention_split_k with the units of kernel table k; 0 (doing nothing) where it does not
/// apply (rows != 1, scratch_stride below ck_attention_split_scratch_floats).
int ck_attention_split_k_with(const ck_attention_desc *d, int nthreads, const ck_path_kernels *k);

/// Floats of scratch per thread that ck_attention_split_k needs for positions below `capacity`
/// and `heads` query heads.
int64_t ck_attention_split_scratch_floats(int64_t capacity, int64_t heads, int64_t head_dim);

/// One unit's view: `len` rows from the range's first position, every head.
typedef struct ck_range_job {
    const float *q;             // [heads][hd]
    const uint8_t *k, *v;       // the range's first row; KV head g at byte g * head_bytes
    int64_t row_bytes, head_bytes, hd, len, heads, group;
    ck_kv_format format;
    float *s;                   // [heads][len] scores, then weights
    float *tmp;                 // hd floats: one decoded head segment (scalar path)
    int16_t *q16;               // q8_0: [heads][hd] the query rounded to int16 ...
    float *qs;                  // ... [heads] and its scale per head: q ~ qs[h] * q16[h]
    float *o, *m, *l;           // partial slot: o [heads][hd], m [heads], l [heads]
} range_job;

/// One block step of a unit's pass: rows [b0, b1) of the range for query heads h .. h+G-1 of
/// KV head g (G from 1 to SPLIT_GW).
typedef void (*split_block_fn)(const range_job *j, int64_t g, int64_t h, int G, int64_t b0, int64_t b1);

/// Query heads a unit serves per pass over a K row or a V block: a row segment is converted
/// once for up to four heads that share it (Gemma 3's whole group, SmolLM2's three).
enum { SPLIT_GW = 4 };

/// The loop every SIMD unit's K and V passes share: blocks of `rows` rows from the range's
/// first; before each, rows [b0 + ahead, b0 + ahead + rows) of `pf` are prefetched (pf NULL:
/// the step prefetches for itself); then per KV head its query heads SPLIT_GW at a time.
/// Inlined into each unit, so `step` is a direct call.
static inline __attribute__((always_inline)) void split_pass(const range_job *j, int64_t rows, const uint8_t *pf, int64_t ahead,
                                                             split_block_fn step) {
    const int64_t len = j->len, group = j->group, kv_heads = j->heads / group;
    for (int64_t b0 = 0; b0 < len; b0 += rows) {
        const int64_t b1 = len - b0 < rows ? len : b0 + rows;
        if (pf) prefetch_rows(pf, j->row_bytes, b0 + ahead, b0 + ahead + rows, len);
        for (int64_t g = 0; g < kv_heads; g++)
            for (int64_t h = g * group; h < (g + 1) * group; h += SPLIT_GW)
                step(j, g, h, (int)((g + 1) * group - h < SPLIT_GW ? (g + 1) * group - h : SPLIT_GW), b0, b1);
    }
}

/// What a q8_0 V step for query heads from h of KV head g, after rows up to b1, prefetches of
/// the next block (up to `rows` rows): KV head g's share (v_prefetch_share) from *pf, taken by
/// its first query head (the others prefetch nothing). Returns the byte count.
static inline int64_t v_step_prefetch(const range_job *j, int64_t g, int64_t h, int64_t b1, int64_t rows, const uint8_t **pf) {
    const int64_t n_pf = j->len - b1 < rows ? j->len - b1 : rows;
    int64_t at;
    const int64_t bytes = v_prefetch_share(n_pf, j->row_bytes, j->heads / j->group, g, &at);
    *pf = j->v + b1 * j->row_bytes + at;
    return h == g * j->group ? bytes : 0;
}

/// The AVX2 split-K unit's softmax (attention_split.c), shared by the wider units: per head the
/// max of s, s replaced by e^(s - max) and their sum into m and l, the partial output zeroed.
void range_softmax(const range_job *j);

/// The scalar unit (any format, any head_dim): rows decoded by ck_kv_load_row, libm's exp.
void ck_attention_split_ref(const range_job *j);
/// The AVX2 units (attention_split.c): fp16 (head_dim not a multiple of 8 goes to the scalar
/// unit), q8_0 (an int16 query against the codes) and MXFP8 E4M3.
void ck_attention_split_f16_avx2(const range_job *j);
void ck_attention_split_q8_0_avx2(const range_job *j);
void ck_attention_split_mxfp8_avx2(const range_job *j);
/// The unit over an fp16 cache on 16-lane vectors (head_dim not a multiple of 16 goes to the
/// AVX2 unit), native and compiled against SIMDe (attention_split_avx512.c).
void ck_attention_split_f16_avx512(const range_job *j);
void ck_attention_split_f16_avx512_emu(const range_job *j);
/// The unit over a q8_0 cache on 16-lane vectors with AVX512-VNNI, native and compiled against
/// SIMDe (attention_split_q8_0_avx512.c).
void ck_attention_split_q8_0_avx512(const range_job *j);
void ck_attention_split_q8_0_avx512_emu(const range_job *j);

#endif
