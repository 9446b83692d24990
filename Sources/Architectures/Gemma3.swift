// Gemma 3 decoder (text part), following llama.cpp's `gemma3` graph (iSWA variant):
// - token embeddings scaled by √embedding;
// - per block: RMSNorm → Q/K/V → per-head RMSNorm of Q and K (QK-norm) → NEOX rotary → Q scaled
//   by 1/√headDim → attention (sliding window on local layers, full on every 6th) → Wo →
//   post-attention RMSNorm → residual; RMSNorm → GELU(tanh)-gated FFN → post-FFN RMSNorm → residual;
// - local layers use rope base 10000, global layers `gemma3.rope.freq_base`;
// - final RMSNorm and the output head tied to the token embedding.
// Norm weights in GGUF already include Gemma's "+1", so they are used as stored.
import Engine
import GGUF

public final class Gemma3: BatchedForward, @unchecked Sendable {
    public let architecture = "gemma3"
    public let hyperparameters: Hyperparameters
    /// Tokens a local (sliding-window) layer can see, itself included.
    public let slidingWindow: Int
    /// Every `globalLayerPeriod`-th layer (index % period == period − 1) attends to everything.
    let globalLayerPeriod = 6
    /// Rope base of the sliding-window layers (fixed by the architecture, not stored in GGUF).
    let localRopeBase: Float = 10_000

    struct Layer {
        let attentionNorm: [Float]            // [embedding]
        let query: WeightMatrix           // embedding → heads·headDim
        let key: WeightMatrix             // embedding → kvHeads·headDim
        let value: WeightMatrix           // embedding → kvHeads·headDim
        let queryNorm: [Float]                // [headDim]
        let keyNorm: [Float]                  // [headDim]
        let attentionOutput: WeightMatrix // heads·headDim → embedding
        let postAttentionNorm: [Float]        // [embedding]
        let ffnNorm: [Float]                  // [embedding]
        let gate: WeightMatrix            // embedding → feedForward
        let up: WeightMatrix              // embedding → feedForward
        let down: WeightMatrix            // feedForward → embedding
        let postFFNNorm: [Float]              // [embedding]
        let isGlobal: Bool
    }

    let tokenEmbedding: EmbeddingTable
    let layers: [Layer]
    /// Per layer, the weights that read one input: [query, key, value] and [gate, up] (built once,
    /// so decode does not build an array per layer per token).
    let attentionInputs: [[WeightMatrix]], ffnInputs: [[WeightMatrix]]
    let outputNorm: [Float]
    let output: WeightMatrix

    init(file: GGUFFile, weights mode: WeightMode) throws(ModelError) {
        let w = WeightLoader(file: file, arch: "gemma3", mode: mode)
        let embedding = try w.int("embedding_length")
        let heads = try w.int("attention.head_count")
        let headDim = try w.int("attention.key_length", default: embedding / heads)
        guard try w.int("attention.value_length", default: headDim) == headDim else {
            throw .badHyperparameter(key: "gemma3.attention.value_length", reason: "differs from key_length")
        }
        let hp = Hyperparameters(
            vocabulary: try w.vocabulary(), embedding: embedding, layers: try w.int("block_count"), heads: heads,
            kvHeads: try w.int("attention.head_count_kv", default: heads), headDim: headDim,
            feedForward: try w.int("feed_forward_length"), trainedContext: try w.int("context_length"),
            rmsEps: try w.float("attention.layer_norm_rms_epsilon"), ropeBase: try w.float("rope.freq_base", default: 1_000_000),
            rotaryDims: headDim)
        guard hp.heads % hp.kvHeads == 0 else { throw .badHyperparameter(key: "gemma3.attention.head_count_kv", reason: "does not divide head_count") }
        hyperparameters = hp
        slidingWindow = try w.int("attention.sliding_window")
        let qDim = hp.heads * hp.headDim, kvDim = hp.kvHeads * hp.headDim
        tokenEmbedding = try w.embedding("token_embd.weight", width: hp.embedding, vocabulary: hp.vocabulary)
        var layers: [Layer] = []
        for i in 0..<hp.layers {
            let p = "blk.\(i)."
            layers.append(Layer(
                attentionNorm: try w.vector(p + "attn_norm.weight", length: hp.embedding),
                query: try w.linear(p + "attn_q.weight", inputs: hp.embedding, outputs: qDim),
                key: try w.linear(p + "attn_k.weight", inputs: hp.embedding, outputs: kvDim),
                value: try w.linear(p + "attn_v.weight", inputs: hp.embedding, outputs: kvDim),
                queryNorm: try w.vector(p + "attn_q_norm.weight", length: hp.headDim),
                keyNorm: try w.vector(p + "attn_k_norm.weight", length: hp.headDim),
                attentionOutput: try w.linear(p + "attn_output.weight", inputs: qDim, outputs: hp.embedding),
                postAttentionNorm: try w.vector(p + "post_attention_norm.weight", length: hp.embedding),
                ffnNorm: try w.vector(p + "ffn_norm.weight", length: hp.embedding),
                gate: try w.linear(p + "ffn_gate.weight", inputs: hp.embedding, outputs: hp.feedForward),
                up: try w.linear(p + "ffn_up.weight", inputs: hp.embedding, outputs: hp.feedForward),
                down: try w.linear(p + "ffn_down.weight", inputs: hp.feedForward, outputs: hp.embedding),
                postFFNNorm: try w.vector(p + "post_ffw_norm.weight", length: hp.embedding),
                isGlobal: i % globalLayerPeriod == globalLayerPeriod - 1))
        }
        self.layers = layers
        attentionInputs = layers.map { [$0.query, $0.key, $0.value] }
        ffnInputs = layers.map { [$0.gate, $0.up] }
        outputNorm = try w.vector("output_norm.weight", length: hp.embedding)
        let head = file.tensor(named: "output.weight") == nil ? "token_embd.weight" : "output.weight"
        output = try w.linear(head, inputs: hp.embedding, outputs: hp.vocabulary)
    }

    public func forward(_ tokens: [Int32], state: ForwardState, logitRows: Range<Int>) -> Matrix? {
        forwardInBatches(tokens, state: state, logitRows: logitRows, step: step)
    }

    private func step(_ tokens: [Int32], positions: [Int], state s: ForwardState) {
        let hp = hyperparameters, n = tokens.count
        let qDim = hp.heads * hp.headDim, kvDim = hp.kvHeads * hp.headDim
        let x = s.buffer("x", columns: hp.embedding)           // residual stream [n][embedding]
        let xn = s.buffer("xn", columns: hp.embedding)
        let q = s.buffer("q", columns: qDim), k = s.buffer("k", columns: kvDim), v = s.buffer("v", columns: kvDim)
        let attended = s.buffer("attended", columns: qDim)
        let projected = s.buffer("projected", columns: hp.embedding)
        let gate = s.buffer("gate", columns: hp.feedForward), up = s.buffer("up", columns: hp.feedForward)

        tokenEmbedding.lookup(tokens, into: x, scale: Float(hp.embedding).squareRoot())
        for (i, layer) in layers.enumerated() {
            let ropeBase = layer.isGlobal ? hp.ropeBase : localRopeBase
            // Attention sub-block.
            Ops.rmsNorm(x, rows: n, weight: layer.attentionNorm, eps: hp.rmsEps, into: xn)
            Ops.linear(xn, rows: n, weights: attentionInputs[i], into: s.group("qkv") { [q, k, v] },
                       scratch: s.matmulScratch, threads: s.threads)
            Ops.rmsNorm(q, rows: n, weight: layer.queryNorm, eps: hp.rmsEps, into: q)   // per head
            Ops.rmsNorm(k, rows: n, weight: layer.keyNorm, eps: hp.rmsEps, into: k)
            Ops.rope(q, rows: n, positions: positions, heads: hp.heads, headDim: hp.headDim, rotaryDims: hp.rotaryDims,
                     base: ropeBase, style: .neox)
            Ops.rope(k, rows: n, positions: positions, heads: hp.kvHeads, headDim: hp.headDim, rotaryDims: hp.rotaryDims,
                     base: ropeBase, style: .neox)
            s.cache.store(layer: i, keys: k, values: v, rows: n, positions: positions)
            Ops.scale(q, rows: n, by: 1 / Float(hp.headDim).squareRoot())
            s.cache.attention(layer: i, queries: q, rows: n, positions: positions, heads: hp.heads, headDim: hp.headDim,
                              window: layer.isGlobal ? nil : slidingWindow, into: attended, scratch: &s.scores,
                              threads: s.threads)
            Ops.linear(attended, rows: n, weight: layer.attentionOutput, into: projected, scratch: s.matmulScratch, threads: s.threads)
            Ops.rmsNorm(projected, rows: n, weight: layer.postAttentionNorm, eps: hp.rmsEps, into: projected)
            Ops.add(projected, into: x, rows: n)

            // Feed-forward sub-block.
            Ops.rmsNorm(x, rows: n, weight: layer.ffnNorm, eps: hp.rmsEps, into: xn)
            Ops.linear(xn, rows: n, weights: ffnInputs[i], into: s.group("gate-up") { [gate, up] },
                       scratch: s.matmulScratch, threads: s.threads)
            Ops.geGLU(gate: gate, up: up, rows: n)
            Ops.linear(gate, rows: n, weight: layer.down, into: projected, scratch: s.matmulScratch, threads: s.threads)
            Ops.rmsNorm(projected, rows: n, weight: layer.postFFNNorm, eps: hp.rmsEps, into: projected)
            Ops.add(projected, into: x, rows: n)
        }
    }

}
