import Engine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One layer's self-attention sub-block, with everything the families here vary:
/// RMSNorm → Q/K/V (separate or column views of a fused `attn_qkv`, optional biases) → optional
/// per-head RMSNorm of Q and K → rope → KV cache → Q scaled → causal attention (grouped-query,
/// optional sliding window) → Wo → optional post-norm. Leaves its output in `projected`.
struct AttentionBlock {
    /// Input RMSNorm weight `[embedding]`.
    let norm: [Float]
    /// [query, key, value]: embedding → heads·headDim, kvHeads·headDim, kvHeads·headDim.
    let inputs: [WeightMatrix]
    /// Biases added after the projections (Qwen 2), `[heads·headDim]`, `[kvHeads·headDim]` ×2.
    let queryBias: [Float]?, keyBias: [Float]?, valueBias: [Float]?
    /// Per-head RMSNorm weights `[headDim]` of Q and K, applied before rope (Gemma 3, Qwen 3).
    let queryNorm: [Float]?, keyNorm: [Float]?
    /// Wo: heads·headDim → embedding.
    let output: WeightMatrix
    /// RMSNorm of the block's output before the residual add (Gemma 3), `[embedding]`.
    let postNorm: [Float]?
    let rope: RopeParameters
    /// Tokens a query sees, itself included (nil: the whole past).
    let window: Int?
    /// Multiplies Q before attention: 1/√headDim unless the family says otherwise.
    let queryScale: Float
    /// Attention temperature (Llama 4 / Mistral 3): Q of position p is also multiplied by
    /// 1 + scale · log(⌊(p + offset) / floor⌋ + 1). Nil: off.
    let temperature: (scale: Float, floor: Int, offset: Float)?

    func run(layer: Int, _ c: StepContext, _ hp: Hyperparameters) {
        let a = c.a, s = c.state
        c.rmsNorm(a.x, norm, eps: hp.rmsEps, into: a.xn)
        c.linear(a.xn, inputs, into: a.qkv)
        c.addBias(queryBias, to: a.q)
        c.addBias(keyBias, to: a.k)
        c.addBias(valueBias, to: a.v)
        if let queryNorm { c.rmsNorm(a.q, queryNorm, eps: hp.rmsEps, into: a.q) }   // per head
        if let keyNorm { c.rmsNorm(a.k, keyNorm, eps: hp.rmsEps, into: a.k) }
        let rope = self.rope.forContext(c.contextSize)
        c.rope(a.q, heads: hp.heads, headDim: hp.headDim, rope)
        c.rope(a.k, heads: hp.kvHeads, headDim: hp.headDim, rope)
        c.storeKV(layer: layer)
        c.scale(a.q, by: queryScale)
        if let t = temperature {
            s.rowFactors.removeAll(keepingCapacity: true)
            for p in c.positions.prefix(c.rows) {
                s.rowFactors.append(1 + t.scale * logf(floorf((Float(p) + t.offset) / Float(t.floor)) + 1))
            }
            c.scaleRows(a.q, by: s.rowFactors)
        }
        c.attention(layer: layer, heads: hp.heads, headDim: hp.headDim, window: window)
        c.linear(a.attended, output, into: a.projected)
        if let postNorm { c.rmsNorm(a.projected, postNorm, eps: hp.rmsEps, into: a.projected) }
    }
}
