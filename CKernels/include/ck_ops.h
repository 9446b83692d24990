// Element-wise and row-wise transformer ops on fp32 rows (reference C, auto-vectorised).
//
// Shapes: a "row" is one token's vector; `n` is its length. Everything works in place or from
// caller-owned buffers; nothing allocates.
#ifndef CK_OPS_H
#define CK_OPS_H

#include <stdint.h>
#include "ck_blocks.h"

/// y = x / sqrt(mean(x^2) + eps) * w   (RMSNorm; y may alias x). Sum accumulated in double.
void ck_rms_norm(const float *x, const float *w, float *y, int64_t n, float eps);
/// ck_rms_norm of four consecutive vectors x + v*n (v = 0..3) into y + v*n, bit-identical to four
/// ck_rms_norm calls (their sums run side by side in double lanes). n a multiple of 4.
void ck_rms_norm4_avx2(const float *x, const float *w, float *y, int64_t n, float eps);
/// ck_rms_norm of `count` consecutive `width`-long vectors x + v*width into y + v*width: one by
/// one (ref) or four at a time where width is a multiple of 4 (AVX2); the same bits either way.
void ck_rms_norm_vectors_ref(const float *x, const float *w, float *y, int64_t count, int64_t width, float eps);
void ck_rms_norm_vectors_avx2(const float *x, const float *w, float *y, int64_t count, int64_t width, float eps);

/// Rotary embedding of one token's heads in place. `x` is [n_heads][head_dim]; the first
/// `n_rot` dims of each head rotate by angle pos * base^(-2i/n_rot). `neox` = 0 rotates adjacent
/// pairs (x[2i], x[2i+1]) as llama.cpp's "normal" mode; 1 rotates (x[i], x[i + n_rot/2]).
/// The angle is built by repeated multiplication, like ggml, so results match it closely.
void ck_rope(float *x, int64_t n_heads, int64_t head_dim, int64_t n_rot, int64_t pos, float base, int neox);
/// ck_rope in two halves, so the angles of a position can serve every layer: c[i] = cos θ_i and
/// s[i] = sin θ_i for the n_rot / 2 pairs (the same sequence of θ as ck_rope), and the rotation
/// of x's heads by them. ck_rope_apply over ck_rope_angles gives ck_rope's bits.
void ck_rope_angles(int64_t pos, int64_t n_rot, float base, float *c, float *s);
void ck_rope_apply(float *x, int64_t n_heads, int64_t head_dim, int64_t n_rot, const float *c, const float *s, int neox);

/// x[i] = silu(gate[i]) * up[i], silu(g) = g / (1 + exp(-g)); result written to `gate`.
/// Dispatches on the active kernel path; every path computes e^-g with the same polynomial
/// (about 1 ulp; the reference one lane at a time, AVX2 eight), so the results are bit-identical.
void ck_swiglu(float *gate, const float *up, int64_t n);
void ck_swiglu_ref(float *gate, const float *up, int64_t n);
void ck_swiglu_avx2(float *gate, const float *up, int64_t n);
/// x[i] = gelu_tanh(gate[i]) * up[i], the tanh approximation; result written to `gate`.
/// gelu is looked up the way llama.cpp's CPU backend does (GGML_GELU_FP16): gate <= -10 gives 0,
/// gate >= 10 gives gate, otherwise the fp16-rounded gelu_tanh of fp16(gate) from a 65536-entry
/// table built on first use (so the result carries fp16 precision, like llama.cpp's).
/// Dispatches on the active kernel path; the AVX2 twin (F16C rounding, gathered table) is
/// bit-identical to the reference.
void ck_geglu(float *gate, const float *up, int64_t n);
void ck_geglu_ref(float *gate, const float *up, int64_t n);
void ck_geglu_avx2(float *gate, const float *up, int64_t n);
/// The table: entry h = fp32 value of fp16(gelu_tanh(fp16 value h)), 65536 floats.
const float *ck_gelu_table(void);

/// y[i] += x[i].
void ck_add(float *y, const float *x, int64_t n);
/// x[i] *= s.
void ck_scale(float *x, float s, int64_t n);

// MARK: - Batches of rows (ops_rows.c)
//
// Row-parallel forms of the ops above for rows [0, rows) of row-major [rows][cols] matrices:
// blocks of 16 rows taken by `nthreads` threads of ck_parallel, each row through the single-row op
// unchanged, so results equal a loop over the rows. Batches under ~16 K elements (decode's one
// row) run on the calling thread without a parallel region. Where an op has a per-path kernel it
// takes `path`: a ck_kernel_path, or -1 for the active one.

/// ck_rms_norm of every `width`-long vector of each row (cols a multiple of width); y may be x.
void ck_rms_norm_rows(const float *x, float *y, int64_t rows, int64_t cols, const float *w, int64_t width, float eps,
                      int nthreads, int path);
/// ck_rope_angles of each row's position into angles[r] = [cos (n_rot / 2) | sin (n_rot / 2)]
/// (rows 2 * (n_rot / 2) floats apart).
void ck_rope_angles_rows(float *angles, int64_t rows, const int64_t *positions, int64_t n_rot, float base, int nthreads);
/// ck_rope_apply of each row r ([heads][head_dim]) with angles[r] from ck_rope_angles_rows: row
/// r rotated as ck_rope at positions[r] (its bits), the angles computed once for all the layers
/// of a batch.
void ck_rope_rows_angles(float *x, int64_t rows, const float *angles, int64_t heads, int64_t head_dim, int64_t n_rot,
                         int neox, int nthreads);
/// ck_swiglu / ck_geglu of each row of gate with the same row of up.
void ck_swiglu_rows(float *gate, const float *up, int64_t rows, int64_t cols, int nthreads, int path);
void ck_geglu_rows(float *gate, const float *up, int64_t rows, int64_t cols, int nthreads, int path);
/// ck_add (y += x) / ck_scale (x *= s) of each row.
void ck_add_rows(float *y, const float *x, int64_t rows, int64_t cols, int nthreads);
void ck_scale_rows(float *x, float s, int64_t rows, int64_t cols, int nthreads);

/// n fp32 values to IEEE half bits, bit-identical to ck_fp32_to_fp16 per value (F16C).
void ck_fp32_to_fp16_row_avx2(const float *x, ck_half *h, int64_t n);

/// A KV cache row of n values (a multiple of 32) as Q8_0 blocks, the way ggml's reference
/// quantizer does it: d = amax / 127 stored as fp16, codes round(x * (1 / d)) with halves away
/// from zero (all zero for an all-zero block; -128 where x * (1 / d) is not finite: a NaN input,
/// an infinite one in its block, or 1 / d overflowing). The AVX2 twin gives the same bytes (~2 % of a
/// SmolLM2 pp512 @ d4096 with a q8_0 cache when scalar, roundf called per value).
void ck_kv_quantize_row_q8_0_ref(const float *x, ck_block_q8_0 *y, int64_t n);
void ck_kv_quantize_row_q8_0_avx2(const float *x, ck_block_q8_0 *y, int64_t n);

/// Storage formats of the KV cache rows.
typedef enum {
    CK_KV_F16 = 0,          // IEEE half per element
    CK_KV_Q8_0 = 1,         // ck_block_q8_0 per 32 elements (fp16 scale)
    CK_KV_MXFP8_E4M3 = 2,   // ck_block_mxfp8 per 32 elements (ue8m0 scale, E4M3 codes)
} ck_kv_format;
/// Number of ck_kv_format values (the kernel table's per-format slots).
#define CK_KV_FORMAT_COUNT 3

/// Bytes one row of `n` elements takes in `format` (n a multiple of 32 for the block formats).
int64_t ck_kv_row_bytes(ck_kv_format format, int64_t n);
/// Encodes one fp32 row of `n` elements into `format` (the active path's kernel).
void ck_kv_store_row(ck_kv_format format, const float *x, void *row, int64_t n);
/// The per-format row encoders the kernel tables name (kv_format.c), the same bytes on every
/// path: fp16 by ck_fp32_to_fp16 per value or F16C; q8_0 by the two quantizers above; MXFP8 E4M3
/// by ck_quantize_row_mxfp8_e4m3.
void ck_kv_store_f16_ref(const float *x, void *row, int64_t n);
void ck_kv_store_f16_avx2(const float *x, void *row, int64_t n);
void ck_kv_store_q8_0_ref(const float *x, void *row, int64_t n);
void ck_kv_store_q8_0_avx2(const float *x, void *row, int64_t n);
void ck_kv_store_mxfp8_e4m3(const float *x, void *row, int64_t n);
/// Decodes one row of `n` elements (exactly what the format's dequantizer gives).
void ck_kv_load_row(ck_kv_format format, const void *row, float *y, int64_t n);

/// ck_kv_store_row of row r of k ([rows][n]) and of v into k_cache / v_cache at byte offset
/// positions[r] * row_bytes, for every row (row-parallel like the *_rows ops above), with the
/// encoder of `path` (a ck_kernel_path, or -1 for the active one).
void ck_kv_store_rows(ck_kv_format format, const float *k, const float *v, int64_t rows, int64_t n,
                      const int64_t *positions, uint8_t *k_cache, uint8_t *v_cache, int64_t row_bytes, int nthreads,
                      int path);

/// What an attention call's query rows are. The kind, never the row count, picks the kernel,
/// so a prompt's rows give the same bits whatever the prefill chunk size, and a decoded row the
/// same bits alone or beside other sequences' rows.
typedef enum {
    CK_ROWS_DECODED = 0,   ///< tokens the model produced, one decode step each
    CK_ROWS_PROMPT = 1,    ///< tokens prefilled (a prompt, or any chunk of one)
} ck_attention_rows;

/// Causal (optionally sliding-window) grouped-query attention of a batch of query rows against
/// one layer's KV cache.
///   q        [rows][q_stride]; head h of row r at q + r*q_stride + h*head_dim (already scaled)
///   k, v     the layer's cache rows, `row_bytes` apart, in `format`; KV head g is elements
///            g*head_dim ..< (g+1)*head_dim of a row (head_dim a multiple of 32 for block formats)
///   positions[r] absolute position of query row r; it sees max(0, p - window + 1) ... p
///            (window 0 = no window)
///   out      [rows][out_stride], same head layout as q
///   scratch  nthreads blocks of scratch_stride floats (ck_attention_scratch_floats(capacity,
///            heads, head_dim) with capacity > every position)
///   kind     what the rows are (ck_attention_rows), which picks the kernel
/// Query head h reads KV head h / (heads / kv_heads). Prompt rows run the blocked prefill kernel
/// over blocks of rows x the query heads sharing a KV head, however many rows the call has; each
/// decoded row runs alone: split-K (ck_attention_split_k), except over an fp16 cache with fewer
/// than CK_SPLIT_MIN_POSITIONS visible positions (and a head_dim that is a multiple of 8), where
/// its query heads are the units. No choice
/// depends on the row count or on nthreads, and no row's sums on the other rows of the call: a
/// row's output is the same bits in any batch, chunk or thread count.
typedef struct {
    const float *q; int64_t q_stride;
    const uint8_t *k, *v; int64_t row_bytes; ck_kv_format format;
    const int64_t *positions; int64_t rows;
    int64_t heads, kv_heads, head_dim, window;
    float *out; int64_t out_stride;
    float *scratch; int64_t scratch_stride;
    ck_attention_rows kind;
} ck_attention_desc;

/// With the kernels of `path` (a ck_kernel_path, or -1 for the active one; a path this CPU
/// cannot run is lowered to the best supported one), its table resolved once per call.
void ck_attention(const ck_attention_desc *d, int nthreads, int path);

/// ck_attention of each of `count` calls (each its own cache, rows, positions and kind; one
/// scratch may serve them all), the same bits as calling it on each in turn; the decoded rows
/// that take the per-head kernel share one parallel region (a batched decode step's sequences).
void ck_attention_batch(const ck_attention_desc *descs, int64_t count, int nthreads, int path);

/// Visible positions from which ck_attention runs an fp16 decode row split-K (measured on 2
/// threads: below it the per-head kernel's single pass costs less than the ranges and merge).
#define CK_SPLIT_MIN_POSITIONS 256

/// Split-K ("flash-decoding") attention of one query row (rows == 1) over the cache in any
/// format: the visible positions cut into min(16, ceil(visible / 64)) contiguous ranges, each
/// walked once for all heads, merged in range order with the log-sum-exp correction (attention_split.c).
/// The same bits on every run and every thread count. Returns 0 (doing nothing)
/// when it does not apply: rows != 1 or scratch_stride too small. Any head_dim (fp16: AVX2 for
/// multiples of 8, 16 lanes on the AVX-512 paths for multiples of 16; the block formats'
/// head_dim is a multiple of 32).
int ck_attention_split_k(const ck_attention_desc *d, int nthreads);
/// ck_attention on an explicit kernel path (a ck_kernel_path), every kernel it chooses from that
/// path's table, so tests can compare paths: 0 (doing nothing) when the path is not supported here.
int ck_attention_on(const ck_attention_desc *d, int nthreads, int path);
/// ck_attention_split_k with the units of an explicit kernel path (a ck_kernel_path), so tests
/// can compare paths; 0 (doing nothing) also when the path is not supported here.
int ck_attention_split_k_on(const ck_attention_desc *d, int nthreads, int path);
/// Floats of scratch one thread needs (scratch_stride) for positions below `capacity`, `heads`
/// query heads of `head_dim`. ck_attention stops the process with one line on less.
int64_t ck_attention_scratch_floats(int64_t capacity, int64_t heads, int64_t head_dim);

#endif
