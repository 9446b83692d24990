import Engine
import GGUF
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading the parts every family shares, by llama.cpp's tensor names (`blk.N.attn_q.weight`, ...)
/// and key names (`<arch>.rope.scaling.*`, ...).
extension WeightLoader {
    /// The keys every family has; `ropeBase` is the default of `rope.freq_base`.
    func hyperparameters(ropeBase: Float = 10_000) throws(ModelError) -> Hyperparameters {
        let embedding = try int("embedding_length")
        let heads = try int("attention.head_count")
        let headDim = try int("attention.key_length", default: embedding / heads)
        guard try int("attention.value_length", default: headDim) == headDim else {
            throw .badHyperparameter(key: "\(arch).attention.value_length", reason: "differs from key_length")
        }
        let hp = Hyperparameters(
            vocabulary: try vocabulary(), embedding: embedding, layers: try int("block_count"), heads: heads,
            kvHeads: try int("attention.head_count_kv", default: heads), headDim: headDim,
            feedForward: try int("feed_forward_length"), trainedContext: try int("context_length"),
            rmsEps: try float("attention.layer_norm_rms_epsilon"), ropeBase: try float("rope.freq_base", default: ropeBase),
            rotaryDims: try int("rope.dimension_count", default: headDim))
        guard hp.heads % hp.kvHeads == 0 else { throw .badHyperparameter(key: "\(arch).attention.head_count_kv", reason: "does not divide head_count") }
        guard hp.rotaryDims <= hp.headDim, hp.rotaryDims % 2 == 0 else {
            throw .badHyperparameter(key: "\(arch).rope.dimension_count", reason: "odd or longer than the head")
        }
        return hp
    }

    /// The rope the file describes, as llama.cpp sets it up for a context of the trained length:
    /// `rope.scaling.type` none / linear / yarn / longrope with `rope.scaling.factor`,
    /// `.attn_factor`, `.original_context_length`, the YaRN betas, and the frequency factors
    /// `rope_freqs.weight` (Llama 3) or `rope_factors_short/long.weight` (LongRoPE).
    func rope(_ hp: Hyperparameters, style: Ops.RopeStyle, base: Float? = nil) throws(ModelError) -> RopeParameters {
        var r = RopeParameters(base: base ?? hp.ropeBase, style: style, rotaryDims: hp.rotaryDims)
        let type = try string("rope.scaling.type") ?? "linear"
        guard ["none", "linear", "yarn", "longrope"].contains(type) else {
            throw .badHyperparameter(key: "\(arch).rope.scaling.type", reason: "unknown scaling \"\(type)\"")
        }
        let factor = try float("rope.scaling.factor", default: 0)
        r.frequencyScale = type == "none" || factor == 0 ? 1 : 1 / factor
        r.originalContext = try int("rope.scaling.original_context_length", default: hp.trainedContext)
        r.betaFast = try float("rope.scaling.yarn_beta_fast", default: 32)
        r.betaSlow = try float("rope.scaling.yarn_beta_slow", default: 1)
        var attentionFactor: Float = 1
        if type == "yarn" {
            // llama.cpp's context setup: the ramp on, and a magnitude of 1 + 0.1·ln(factor) (or the
            // ratio of two such terms with `yarn_log_multiplier`), of which the rope kernel's own
            // 1 + 0.1·ln(factor) is cancelled.
            r.extrapolation = try float("rope.scaling.yarn_ext_factor", default: 1)
            let scale = 1 / r.frequencyScale
            func mscale(_ m: Float) -> Float { scale <= 1 ? 1 : 0.1 * m * logf(scale) + 1 }
            let logMultiplier = try float("rope.scaling.yarn_log_multiplier", default: 0)
            attentionFactor = logMultiplier != 0 ? mscale(1) / mscale(logMultiplier) : mscale(1)
            attentionFactor *= 1 / (1 + 0.1 * logf(scale))
        }
        r.attentionFactor = attentionFactor * (try float("rope.scaling.attn_factor", default: 1))
        let pairs = hp.rotaryDims / 2
        if has("rope_freqs.weight") {
            r.frequencyFactors = try vector("rope_freqs.weight", length: pairs)
        } else if has("rope_factors_short.weight") || has("rope_factors_long.weight") {
            r.frequencyFactors = try vector("rope_factors_short.weight", length: pairs)
            r.longFactors = try vector("rope_factors_long.weight", length: pairs)
        }
        return r
    }

    /// Layer `i`'s attention: separate `attn_q/k/v` or a fused `attn_qkv`, optional biases
    /// (`attn_q.bias`, ... or `attn_qkv.bias`), optional per-head Q/K norms, optional post-norm.
    func attention(_ i: Int, _ hp: Hyperparameters, rope: RopeParameters, queryNorm: Bool = false,
                   postNorm: Bool = false, window: Int? = nil, queryScale: Float? = nil,
                   temperature: (scale: Float, floor: Int, offset: Float)? = nil) throws(ModelError) -> AttentionBlock {
        let p = "blk.\(i)."
        let qDim = hp.heads * hp.headDim, kvDim = hp.kvHeads * hp.headDim
        let inputs: [WeightMatrix]
        var qBias: [Float]?, kBias: [Float]?, vBias: [Float]?
        if has(p + "attn_qkv.weight") {
            inputs = try split(p + "attn_qkv.weight", inputs: hp.embedding, outputs: [qDim, kvDim, kvDim])
            if let b = try optionalVector(p + "attn_qkv.bias", length: qDim + 2 * kvDim) {
                qBias = Array(b[0..<qDim])
                kBias = Array(b[qDim..<qDim + kvDim])
                vBias = Array(b[(qDim + kvDim)...])
            }
        } else {
            inputs = [try linear(p + "attn_q.weight", inputs: hp.embedding, outputs: qDim),
                      try linear(p + "attn_k.weight", inputs: hp.embedding, outputs: kvDim),
                      try linear(p + "attn_v.weight", inputs: hp.embedding, outputs: kvDim)]
        }
        if qBias == nil {   // separate biases (also beside a fused weight in some files)
            qBias = try optionalVector(p + "attn_q.bias", length: qDim)
            kBias = try optionalVector(p + "attn_k.bias", length: kvDim)
            vBias = try optionalVector(p + "attn_v.bias", length: kvDim)
        }
        return AttentionBlock(
            norm: try vector(p + "attn_norm.weight", length: hp.embedding), inputs: inputs,
            queryBias: qBias, keyBias: kBias, valueBias: vBias,
            queryNorm: queryNorm ? try vector(p + "attn_q_norm.weight", length: hp.headDim) : nil,
            keyNorm: queryNorm ? try vector(p + "attn_k_norm.weight", length: hp.headDim) : nil,
            output: try linear(p + "attn_output.weight", inputs: qDim, outputs: hp.embedding),
            postNorm: postNorm ? try vector(p + "post_attention_norm.weight", length: hp.embedding) : nil,
            rope: rope, window: window, queryScale: queryScale ?? 1 / Float(hp.headDim).squareRoot(),
            temperature: temperature)
    }

    /// Layer `i`'s gated FFN: `ffn_gate` + `ffn_up`, or one `ffn_up` of 2·feedForward rows whose
    /// first half is the gate (Phi-3); optional post-norm (`post_ffw_norm`).
    func feedForward(_ i: Int, _ hp: Hyperparameters, activation: FeedForwardBlock.Activation,
                     postNorm: Bool = false) throws(ModelError) -> FeedForwardBlock {
        let p = "blk.\(i)."
        let inputs = has(p + "ffn_gate.weight")
            ? [try linear(p + "ffn_gate.weight", inputs: hp.embedding, outputs: hp.feedForward),
               try linear(p + "ffn_up.weight", inputs: hp.embedding, outputs: hp.feedForward)]
            : try split(p + "ffn_up.weight", inputs: hp.embedding, outputs: [hp.feedForward, hp.feedForward])
        return FeedForwardBlock(
            norm: try vector(p + "ffn_norm.weight", length: hp.embedding), inputs: inputs,
            down: try linear(p + "ffn_down.weight", inputs: hp.feedForward, outputs: hp.embedding),
            activation: activation,
            postNorm: postNorm ? try vector(p + "post_ffw_norm.weight", length: hp.embedding) : nil)
    }

    /// `output_norm` and the head: `output.weight`, or the token embedding when tied.
    func head(_ hp: Hyperparameters) throws(ModelError) -> (norm: [Float], output: WeightMatrix) {
        let name = has("output.weight") ? "output.weight" : "token_embd.weight"
        return (try vector("output_norm.weight", length: hp.embedding),
                try linear(name, inputs: hp.embedding, outputs: hp.vocabulary))
    }

    /// Every layer's blocks, made by `layer`.
    func layers(_ hp: Hyperparameters, _ layer: (Int) throws(ModelError) -> DecoderLayer) throws(ModelError) -> [DecoderLayer] {
        var all: [DecoderLayer] = []
        for i in 0..<hp.layers { all.append(try layer(i)) }
        return all
    }

    /// A decoder with the shared head and the token embedding.
    func decoder(_ hp: Hyperparameters, embeddingScale: Float = 1, residualScale: Float = 1, logitScale: Float = 1,
                 layer: (Int) throws(ModelError) -> DecoderLayer) throws(ModelError) -> Decoder {
        let embedding = try embedding("token_embd.weight", width: hp.embedding, vocabulary: hp.vocabulary)
        let layers = try layers(hp, layer)
        let (norm, output) = try head(hp)
        return Decoder(architecture: arch, hyperparameters: hp, tokenEmbedding: embedding, embeddingScale: embeddingScale,
                       layers: layers, residualScale: residualScale, outputNorm: norm, output: output, logitScale: logitScale)
    }
}
