// Private to the attention kernels (attention.c, attention_split*.c, attention_tiled.c).
#ifndef CK_ATTENTION_INTERNAL_H
#define CK_ATTENTION_INTERNAL_H

#include "ck_ops.h"
#include "ck_matmul.h"
#include <stdint.h>

/// Runs `d` with the blocked kernel (attention_tiled.c), its FMA phases those of kernel table k;
/// returns 0 (doing nothing) when it cannot: a path without SIMD attention (ref), head_dim not a
/// multiple of 8 or scratch_stride below ck_attention_scratch_floats.
int ck_attention_tiled(const ck_attention_desc *d, int nthreads, const ck_path_kernels *k);

/// Floats of scratch per thread that ck_attention_tiled needs (independent of the depth).
int64_t ck_attention_tiled_scratch_floats(int64_t head_dim);

/// Floats of scratch per thread that ck_attention_split_k needs for positions below `capacity`
/// (for up to 32 query heads).
int64_t ck_attention_split_scratch_floats(int64_t capacity, int64_t head_dim);

/// Prefetches bytes [p, p + bytes) into L1, a cache line at a time. The attention passes read
/// a row's KV head segments `row_bytes` apart, a stride the hardware prefetchers follow too late.
/// The loop is kept rolled: clang unrolled it eight lines at a time, and that back-to-back burst
/// made the split-K decode at depth 4096 stream its cache at about a third of the read rate
/// (decode microbenchmark, AVX2 EPYC, 2 threads, fp16: 30 SmolLM2-shaped layers 16.7-17.9 ->
/// 9.5-10.5 ms per token, 18 Gemma-shaped 9.7-10.4 -> 6.7-7.0 ms; the same addresses either way).
static inline __attribute__((always_inline)) void kv_prefetch(const uint8_t *p, int64_t bytes) {
#pragma clang loop unroll(disable)
    for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b, 0, 3);   // prefetcht0
}

/// Prefetches rows [p0, min(p1, len)) of `base` (rows row_bytes apart) into L1, with kv_prefetch.
static inline __attribute__((always_inline)) void prefetch_rows(const uint8_t *base, int64_t row_bytes, int64_t p0, int64_t p1,
                                                                int64_t len) {
    if (p1 > len) p1 = len;
    if (p0 < p1) kv_prefetch(base + p0 * row_bytes, (p1 - p0) * row_bytes);
}

/// The part of the next V block (n_pf rows of row_bytes) that KV head g's pass of the q8_0 units
/// prefetches: the block cut into kv_heads shares of whole cache lines, share g at byte *offset.
/// Returns its byte count (0 for shares past the block's end).
static inline int64_t v_prefetch_share(int64_t n_pf, int64_t row_bytes, int64_t kv_heads, int64_t g, int64_t *offset) {
    const int64_t share = ((n_pf * row_bytes + kv_heads - 1) / kv_heads + 63) & ~(int64_t)63;
    const int64_t bytes = n_pf * row_bytes - g * share;
    *offset = g * share;
    return bytes < 0 ? 0 : bytes > share ? share : bytes;
}

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

/// The AVX2 split-K unit's softmax (attention_split.c), shared by the wider units: per head the
/// max of s, s replaced by e^(s - max) and their sum into m and l, the partial output zeroed.
void range_softmax(const range_job *j);

/// The split-K unit over an fp16 cache on 16-lane vectors (head_dim a multiple of 16), native and
/// compiled against SIMDe (attention_split_avx512.c), named by the AVX-512 paths' kernel tables.
void ck_attention_split_f16_avx512(const range_job *j);
void ck_attention_split_f16_avx512_emu(const range_job *j);

/// The split-K unit over a q8_0 cache on 16-lane vectors with AVX512-VNNI, native and compiled
/// against SIMDe (attention_split_q8_0_avx512.c), named by the AVX-512 paths' kernel tables.
void ck_attention_split_q8_0_avx512(const range_job *j);
void ck_attention_split_q8_0_avx512_emu(const range_job *j);

#endif
