// Private to the attention kernels: software prefetch of KV cache rows.
#ifndef CK_ATTENTION_PREFETCH_H
#define CK_ATTENTION_PREFETCH_H

#include <stdint.h>

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

#endif
