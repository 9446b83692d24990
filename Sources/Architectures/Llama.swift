// Llama-family decoder (Llama 2/3, Mistral, SmolLM2, TinyLlama): pre-norm blocks of
// RMSNorm → grouped-query attention with rotary embeddings → residual, RMSNorm → SwiGLU FFN →
// residual; final RMSNorm and the output head (tied to the token embedding when the file has no
// `output.weight`). Follows llama.cpp's `llama` graph: rotary pairs are adjacent dimensions
// ("normal" rope; the GGUF converter permuted Q/K rows for it).
import Engine
import GGUF

public final class Llama: BatchedForward, @unchecked Sendable {
    public let architecture = "llama"
    public let hyperparameters: Hyperparameters

    struct Layer {
        let attentionNorm: [Float]           // [embedding]
        let query: WeightMatrix          // embedding → heads·headDim
        let key: WeightMatrix            // embedding → kvHeads·headDim
        let value: WeightMatrix          // embedding → kvHeads·headDim
        let attentionOutput: WeightMatrix // heads·headDim → embedding
        let ffnNorm: [Float]                 // [embedding]
        let gate: WeightMatrix           // embedding → feedForward
        let up: WeightMatrix             // embedding → feedForward
        let down: WeightMatrix           // feedForward → embedding
    }

    let tokenEmbedding: EmbeddingTable
    let layers: [Layer]
    /// Per layer, the weights that read one input: [query, key, value] and [gate, up] (built once,
    /// so decode does not build an array per layer per token).
    let attentionInputs: [[WeightMatrix]], ffnInputs: [[WeightMatrix]]
    let outputNorm: [Float]
    let output: WeightMatrix             // embedding → vocabulary

    init(file: GGUFFile, weights mode: WeightMode) throws(ModelError) {
        let w = WeightLoader(file: file, arch: "llama", mode: mode)
        let embedding = try w.int("embedding_length")
        let heads = try w.int("attention.head_count")
        let headDim = try w.int("attention.key_length", default: embedding / heads)
        let vocabulary = try w.vocabulary()
        let hp = Hyperparameters(
            vocabulary: vocabulary, embedding: embedding, layers: try w.int("block_count"), heads: heads,
            kvHeads: try w.int("attention.head_count_kv", default: heads), headDim: headDim,
            feedForward: try w.int("feed_forward_length"), trainedContext: try w.int("context_length"),
            rmsEps: try w.float("attention.layer_norm_rms_epsilon"), ropeBase: try w.float("rope.freq_base", default: 10000),
            rotaryDims: try w.int("rope.dimension_count", default: headDim))
        guard hp.heads % hp.kvHeads == 0 else { throw .badHyperparameter(key: "llama.attention.head_count_kv", reason: "does not divide head_count") }
        hyperparameters = hp
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
                attentionOutput: try w.linear(p + "attn_output.weight", inputs: qDim, outputs: hp.embedding),
                ffnNorm: try w.vector(p + "ffn_norm.weight", length: hp.embedding),
                gate: try w.linear(p + "ffn_gate.weight", inputs: hp.embedding, outputs: hp.feedForward),
                up: try w.linear(p + "ffn_up.weight", inputs: hp.embedding, outputs: hp.feedForward),
                down: try w.linear(p + "ffn_down.weight", inputs: hp.feedForward, outputs: hp.embedding)))
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

    /// One batch of at most `maxBatch` tokens; returns nothing, leaves the final hidden states in "x".
    private func step(_ tokens: [Int32], positions: [Int], state s: ForwardState) {
        let hp = hyperparameters, n = tokens.count
        let qDim = hp.heads * hp.headDim, kvDim = hp.kvHeads * hp.headDim
        let x = s.buffer("x", columns: hp.embedding)           // residual stream [n][embedding]
        let xn = s.buffer("xn", columns: hp.embedding)         // normalised input of a sub-block
        let q = s.buffer("q", columns: qDim), k = s.buffer("k", columns: kvDim), v = s.buffer("v", columns: kvDim)
        let attended = s.buffer("attended", columns: qDim)    // attention output before Wo
        let projected = s.buffer("projected", columns: hp.embedding)
        let gate = s.buffer("gate", columns: hp.feedForward), up = s.buffer("up", columns: hp.feedForward)

        tokenEmbedding.lookup(tokens, into: x)
        for (i, layer) in layers.enumerated() {
            // Attention sub-block.
            Ops.rmsNorm(x, rows: n, weight: layer.attentionNorm, eps: hp.rmsEps, into: xn)
            Ops.linear(xn, rows: n, weights: attentionInputs[i], into: s.group("qkv") { [q, k, v] },
                       scratch: s.matmulScratch, threads: s.threads)
            Ops.rope(q, rows: n, positions: positions, heads: hp.heads, headDim: hp.headDim, rotaryDims: hp.rotaryDims,
                     base: hp.ropeBase, style: .interleaved)
            Ops.rope(k, rows: n, positions: positions, heads: hp.kvHeads, headDim: hp.headDim, rotaryDims: hp.rotaryDims,
                     base: hp.ropeBase, style: .interleaved)
            s.cache.store(layer: i, keys: k, values: v, rows: n, positions: positions)
            Ops.scale(q, rows: n, by: 1 / Float(hp.headDim).squareRoot())
            s.cache.attention(layer: i, queries: q, rows: n, positions: positions, heads: hp.heads, headDim: hp.headDim,
                              window: nil, into: attended, scratch: &s.scores,
                              threads: s.threads)
            Ops.linear(attended, rows: n, weight: layer.attentionOutput, into: projected, scratch: s.matmulScratch, threads: s.threads)
            Ops.add(projected, into: x, rows: n)

            // Feed-forward sub-block.
            Ops.rmsNorm(x, rows: n, weight: layer.ffnNorm, eps: hp.rmsEps, into: xn)
            Ops.linear(xn, rows: n, weights: ffnInputs[i], into: s.group("gate-up") { [gate, up] },
                       scratch: s.matmulScratch, threads: s.threads)
            Ops.swiGLU(gate: gate, up: up, rows: n)
            Ops.linear(gate, rows: n, weight: layer.down, into: projected, scratch: s.matmulScratch, threads: s.threads)
            Ops.add(projected, into: x, rows: n)
        }
    }

}
