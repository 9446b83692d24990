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

/// Rotary embedding of one token's heads in place. `x` is [n_heads][head_dim]; the first
/// `n_rot` dims of each head rotate by angle pos * base^(-2i/n_rot). `neox` = 0 rotates adjacent
/// pairs (x[2i], x[2i+1]) as llama.cpp's "normal" mode; 1 rotates (x[i], x[i + n_rot/2]).
/// The angle is built by repeated multiplication, like ggml, so results match it closely.
void ck_rope(float *x, int64_t n_heads, int64_t head_dim, int64_t n_rot, int64_t pos, float base, int neox);

/// x[i] = silu(gate[i]) * up[i], silu(g) = g / (1 + exp(-g)); result written to `gate`.
void ck_swiglu(float *gate, const float *up, int64_t n);
/// x[i] = gelu_tanh(gate[i]) * up[i], the tanh approximation; result written to `gate`.
void ck_geglu(float *gate, const float *up, int64_t n);

/// y[i] += x[i].
void ck_add(float *y, const float *x, int64_t n);
/// x[i] *= s.
void ck_scale(float *x, float s, int64_t n);

/// fp32 -> fp16 for a row (KV cache writes).
void ck_fp32_to_fp16_row(const float *x, ck_half *y, int64_t n);

/// Causal attention for one query head against fp16 K/V rows of one KV head.
///   q      [head_dim]                 already scaled by the attention scale
///   k, v   rows of the cache: element (pos, d) at k[pos * kv_stride + d]
///   first..last (inclusive) positions visible to this query
///   scores scratch of at least last + 1 floats
///   out    [head_dim]
void ck_attend_head(const float *q, const ck_half *k, const ck_half *v, int64_t kv_stride, int64_t head_dim,
                    int64_t first, int64_t last, float *scores, float *out);

#endif
