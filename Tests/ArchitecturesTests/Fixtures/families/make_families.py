#!/usr/bin/env python3
"""Writes the tiny random-weight GGUF files of FamilyReferenceTests: one per model family, with
that family's real tensor names, layouts and metadata keys (as llama.cpp's converters write
them), in f32 and in one quantized type. No tokenizer (`tokenizer.ggml.model = no_vocab`): the
tests and the llama.cpp reference work on token ids.

    pip install gguf numpy
    python3 make_families.py            # writes <family>-f32.gguf and <family>-<quant>.gguf here

Deterministic (fixed seeds), so rerunning it reproduces the committed files byte for byte.
"""
import os
import numpy as np
import gguf
from gguf import GGMLQuantizationType as T

HERE = os.path.dirname(os.path.abspath(__file__))
VOCAB, EMBD, LAYERS, HEADS, KV_HEADS, HEAD_DIM, FFN, CTX = 256, 64, 2, 4, 2, 16, 128, 128


def families():
    """name -> (architecture, quantized type, options)."""
    return {
        "llama3": ("llama", T.Q4_0, dict(rope_freqs=True, tied=False, seed=1101)),
        "qwen2": ("qwen2", T.Q4_0, dict(qkv_bias=True, neox=True, tied=True)),
        "qwen3": ("qwen3", T.Q4_0, dict(qk_norm=True, neox=True, head_dim=32, tied=False)),
        "phi3": ("phi3", T.Q8_0, dict(fused=True, neox=True, longrope=True, rot=12, tied=False)),
        "granite": ("granite", T.Q8_0, dict(granite=True, tied=False)),
        "mistral3": ("mistral3", T.Q8_0, dict(yarn=True, temperature=True, tied=False)),
        # LongRoPE within the original context: the short factors apply.
        "phi3short": ("phi3", T.Q8_0, dict(fused=True, neox=True, longrope=True, rot=12, tied=False, orig=4096)),
    }


def make(name, arch, opts, qtype, seed):
    rng = np.random.default_rng(seed)
    head_dim = opts.get("head_dim", HEAD_DIM)
    q_dim, kv_dim = HEADS * head_dim, KV_HEADS * head_dim
    rot = opts.get("rot", head_dim)

    def mat(n_out, n_in, scale=None):
        # numpy shape (rows, row length) = GGUF shape [n_in, n_out] reversed
        return (rng.standard_normal((n_out, n_in)) * (scale or 1 / np.sqrt(n_in))).astype(np.float32)

    def norm(n):
        return (1 + 0.2 * rng.standard_normal(n)).astype(np.float32)

    # A tied head reads the residual stream back through the embedding, so with small blocks the
    # argmax is the input token itself; tied fixtures get smaller embeddings and larger block
    # outputs so their greedy continuations move.
    tied = opts.get("tied")
    embd_scale = (0.3 if tied else 1.0) / (12.0 if opts.get("granite") else 1.0)   # granite multiplies by 12
    # granite scales block outputs by 0.22
    out_gain = (4.0 if tied else 1.0) / (0.22 if opts.get("granite") else 1.0)
    tensors = {"token_embd.weight": mat(VOCAB, EMBD, embd_scale), "output_norm.weight": norm(EMBD)}
    if not tied:
        head_gain = 8.0 if opts.get("granite") else 1.0   # granite divides the logits by 8
        tensors["output.weight"] = mat(VOCAB, EMBD, head_gain * 2 / np.sqrt(EMBD))
    if opts.get("rope_freqs"):
        # Llama 3's converter writes 1 for high frequencies, the scaling factor for low ones and
        # a smooth blend between; any positive factors exercise the same code.
        tensors["rope_freqs.weight"] = np.exp(rng.uniform(0, np.log(8), rot // 2)).astype(np.float32)
    if opts.get("longrope"):
        tensors["rope_factors_short.weight"] = rng.uniform(1, 2, rot // 2).astype(np.float32)
        tensors["rope_factors_long.weight"] = rng.uniform(1, 16, rot // 2).astype(np.float32)
    for i in range(LAYERS):
        p = f"blk.{i}."
        tensors[p + "attn_norm.weight"] = norm(EMBD)
        if opts.get("fused"):
            tensors[p + "attn_qkv.weight"] = mat(q_dim + 2 * kv_dim, EMBD)
        else:
            tensors[p + "attn_q.weight"] = mat(q_dim, EMBD)
            tensors[p + "attn_k.weight"] = mat(kv_dim, EMBD)
            tensors[p + "attn_v.weight"] = mat(kv_dim, EMBD)
        if opts.get("qkv_bias"):
            tensors[p + "attn_q.bias"] = (0.2 * rng.standard_normal(q_dim)).astype(np.float32)
            tensors[p + "attn_k.bias"] = (0.2 * rng.standard_normal(kv_dim)).astype(np.float32)
            tensors[p + "attn_v.bias"] = (0.2 * rng.standard_normal(kv_dim)).astype(np.float32)
        if opts.get("qk_norm"):
            tensors[p + "attn_q_norm.weight"] = norm(head_dim)
            tensors[p + "attn_k_norm.weight"] = norm(head_dim)
        tensors[p + "attn_output.weight"] = mat(EMBD, q_dim, out_gain / np.sqrt(q_dim))
        tensors[p + "ffn_norm.weight"] = norm(EMBD)
        if opts.get("fused"):
            tensors[p + "ffn_up.weight"] = mat(2 * FFN, EMBD)   # rows: gate, then up
        else:
            tensors[p + "ffn_gate.weight"] = mat(FFN, EMBD)
            tensors[p + "ffn_up.weight"] = mat(FFN, EMBD)
        tensors[p + "ffn_down.weight"] = mat(EMBD, FFN, out_gain / np.sqrt(FFN))

    for suffix, quant in (("f32", None), (qtype.name.lower(), qtype)):
        w = gguf.GGUFWriter(os.path.join(HERE, f"{name}-{suffix}.gguf"), arch)
        w.add_name(f"tiny random {name}")
        w.add_context_length(CTX)
        w.add_embedding_length(EMBD)
        w.add_block_count(LAYERS)
        w.add_feed_forward_length(FFN)
        w.add_head_count(HEADS)
        w.add_head_count_kv(KV_HEADS)
        w.add_layer_norm_rms_eps(1e-6)
        w.add_rope_freq_base(10000.0 if arch != "qwen3" else 1_000_000.0)
        w.add_vocab_size(VOCAB)
        if head_dim != EMBD // HEADS:
            w.add_key_length(head_dim)
            w.add_value_length(head_dim)
        if rot != head_dim:
            w.add_rope_dimension_count(rot)
        if opts.get("longrope"):
            # Phi-3's converter: original context and sqrt(1 + ln(scale) / ln(original)) as attn_factor.
            orig = opts.get("orig", 16)
            w.add_rope_scaling_orig_ctx_len(orig)
            scale = max(CTX, 2 * orig) / orig
            w.add_rope_scaling_attn_factors(float(np.sqrt(1 + np.log(scale) / np.log(orig))))
        if opts.get("yarn"):
            w.add_rope_scaling_type(gguf.RopeScalingType.YARN)
            w.add_rope_scaling_factor(4.0)
            w.add_rope_scaling_orig_ctx_len(16)
            w.add_float32(f"{arch}.rope.scaling.yarn_beta_fast", 32.0)
            w.add_float32(f"{arch}.rope.scaling.yarn_beta_slow", 1.0)
        if opts.get("temperature"):
            w.add_float32(f"{arch}.attention.temperature_scale", 0.1)
        if opts.get("granite"):
            w.add_embedding_scale(12.0)
            w.add_residual_scale(0.22)
            w.add_attention_scale(0.03125)
            w.add_logit_scale(8.0)
        w.add_tokenizer_model("no_vocab")
        for tname, data in tensors.items():
            if quant is not None and data.ndim == 2:
                w.add_tensor(tname, gguf.quants.quantize(data, quant), raw_dtype=quant)
            else:
                w.add_tensor(tname, data)
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()


if __name__ == "__main__":
    for seed, (name, (arch, qtype, opts)) in enumerate(families().items()):
        make(name, arch, opts, qtype, opts.get("seed", 1000 + seed))
