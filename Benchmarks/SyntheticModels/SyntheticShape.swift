import GGUF

/// A published model's shape as its GGUF describes it: the hyperparameters, the tensors each layer
/// has, the architecture keys the converter writes. A synthetic file of this shape loads and runs
/// like the real model (same tensors, same bytes per token), with random weights.
public struct SyntheticShape: Sendable {
    /// The preset's name on the command line (`llama3.2-1b`).
    public let name: String
    /// `general.architecture`.
    public let architecture: String
    public let vocabulary: Int, embedding: Int, layers: Int, heads: Int, kvHeads: Int, headDim: Int
    /// Width of the feed-forward hidden layer (gate and up rows each).
    public let feedForward: Int
    /// The mix written when the spec names no type (the published GGUF's, or a common one).
    public let defaultMix: QuantMix
    /// No `output.weight`: the token embedding is also the output head.
    public let tiedOutput: Bool
    /// Architecture keys beyond the ones every family has (`SyntheticModel.metadata`), as
    /// llama.cpp's converter writes them for this model; names without the `<arch>.` prefix.
    let extraKeys: [(String, GGUFValue)]
    let context: Int
    let ropeBase: Float, rmsEps: Float
    /// Pairs rotated per head (`rope.dimension_count`); the head width unless partial.
    let rotaryDims: Int
    /// Llama 3's rope: `rope_freqs.weight` from (factor, low-frequency factor, high-frequency
    /// factor, original context).
    var llama3Rope: (factor: Float, low: Float, high: Float, original: Int)? = nil

    /// The presets `bench --synthetic` knows, smallest first.
    public static let presets: [SyntheticShape] = [
        smolLM2_135M, gemma3_270M, llama32_1B, qwen25_1_5B, llama32_3B, phi4Mini, qwen3_4B, llama31_8B,
    ]

    /// The preset called `name`, if any.
    public static func preset(named name: String) -> SyntheticShape? { presets.first { $0.name == name } }
}

// Numbers below: the models' published config.json (Hugging Face) as llama.cpp's
// convert_hf_to_gguf.py writes them; for the two models in Models/ their GGUF files' own keys.
extension SyntheticShape {
    /// HuggingFaceTB/SmolLM2-135M-Instruct: the keys of Models/SmolLM2-135M-Instruct.Q4_1.gguf.
    static let smolLM2_135M = SyntheticShape(
        name: "smollm2-135m", architecture: "llama", vocabulary: 49_152, embedding: 576, layers: 30, heads: 9, kvHeads: 3,
        headDim: 64, feedForward: 1536, defaultMix: .q4_1, tiedOutput: true,
        extraKeys: [("vocab_size", .uint32(49_152)), ("rope.dimension_count", .uint32(64))],
        context: 8192, ropeBase: 100_000, rmsEps: 1e-5, rotaryDims: 64)

    /// google/gemma-3-270m: the keys of Models/gemma-3-270m-q4_k_m.gguf (head width 256 with 640
    /// wide embeddings, one K/V head, a 512-token window on five layers of six).
    static let gemma3_270M = SyntheticShape(
        name: "gemma3-270m", architecture: "gemma3", vocabulary: 262_144, embedding: 640, layers: 18, heads: 4, kvHeads: 1,
        headDim: 256, feedForward: 2048, defaultMix: .q4_K_M, tiedOutput: true,
        extraKeys: [("attention.key_length", .uint32(256)), ("attention.value_length", .uint32(256)),
                    ("attention.sliding_window", .uint32(512))],
        context: 32_768, ropeBase: 1_000_000, rmsEps: 1e-6, rotaryDims: 256)

    /// meta-llama/Llama-3.2-1B: hidden 2048, 16 layers, 32 heads of 64, 8 K/V heads, FFN 8192,
    /// vocabulary 128256, tied embeddings, rope θ 500000 with llama3 scaling (factor 32, low 1,
    /// high 4, original 8192), 131072 context.
    static let llama32_1B = SyntheticShape(
        name: "llama3.2-1b", architecture: "llama", vocabulary: 128_256, embedding: 2048, layers: 16, heads: 32, kvHeads: 8,
        headDim: 64, feedForward: 8192, defaultMix: .q4_0, tiedOutput: true,
        extraKeys: [("vocab_size", .uint32(128_256)), ("rope.dimension_count", .uint32(64))],
        context: 131_072, ropeBase: 500_000, rmsEps: 1e-5, rotaryDims: 64, llama3Rope: (32, 1, 4, 8192))

    /// Qwen/Qwen2.5-1.5B-Instruct: hidden 1536, 28 layers, 12 heads of 128, 2 K/V heads, FFN 8960,
    /// vocabulary 151936, tied embeddings, Q/K/V biases, rope θ 1e6, RMS ε 1e-6, 32768 context.
    static let qwen25_1_5B = SyntheticShape(
        name: "qwen2.5-1.5b", architecture: "qwen2", vocabulary: 151_936, embedding: 1536, layers: 28, heads: 12, kvHeads: 2,
        headDim: 128, feedForward: 8960, defaultMix: .q4_K_M, tiedOutput: true, extraKeys: [],
        context: 32_768, ropeBase: 1_000_000, rmsEps: 1e-6, rotaryDims: 128)

    /// meta-llama/Llama-3.2-3B: hidden 3072, 28 layers, 24 heads of 128, 8 K/V heads, FFN 8192,
    /// tied embeddings; vocabulary and rope as the 1B.
    static let llama32_3B = SyntheticShape(
        name: "llama3.2-3b", architecture: "llama", vocabulary: 128_256, embedding: 3072, layers: 28, heads: 24, kvHeads: 8,
        headDim: 128, feedForward: 8192, defaultMix: .q4_K_M, tiedOutput: true,
        extraKeys: [("vocab_size", .uint32(128_256)), ("rope.dimension_count", .uint32(128))],
        context: 131_072, ropeBase: 500_000, rmsEps: 1e-5, rotaryDims: 128, llama3Rope: (32, 1, 4, 8192))

    /// microsoft/Phi-4-mini-instruct: hidden 3072, 32 layers, 24 heads of 128, 8 K/V heads, FFN
    /// 8192 (fused gate/up), fused QKV, vocabulary 200064, tied embeddings, partial rotary 0.75
    /// (96 dims), LongRoPE from 4096 to 131072 (attn_factor √(1 + ln 32 / ln 4096)), rope θ 10000,
    /// sliding_window 262144 (which llama.cpp ignores for phi3).
    static let phi4Mini = SyntheticShape(
        name: "phi4-mini", architecture: "phi3", vocabulary: 200_064, embedding: 3072, layers: 32, heads: 24, kvHeads: 8,
        headDim: 128, feedForward: 8192, defaultMix: .q6_K, tiedOutput: true,
        extraKeys: [("rope.dimension_count", .uint32(96)), ("rope.scaling.original_context_length", .uint32(4096)),
                    ("rope.scaling.attn_factor", .float32(1.190_238)), ("attention.sliding_window", .uint32(262_144))],
        context: 131_072, ropeBase: 10_000, rmsEps: 1e-5, rotaryDims: 96)

    /// Qwen/Qwen3-4B: hidden 2560, 36 layers, 32 heads of 128 (wider than 2560/32), 8 K/V heads,
    /// FFN 9728, vocabulary 151936, tied embeddings, Q/K RMS norms, rope θ 1e6, RMS ε 1e-6, 40960
    /// context.
    static let qwen3_4B = SyntheticShape(
        name: "qwen3-4b", architecture: "qwen3", vocabulary: 151_936, embedding: 2560, layers: 36, heads: 32, kvHeads: 8,
        headDim: 128, feedForward: 9728, defaultMix: .q8_0, tiedOutput: true,
        extraKeys: [("attention.key_length", .uint32(128)), ("attention.value_length", .uint32(128))],
        context: 40_960, ropeBase: 1_000_000, rmsEps: 1e-6, rotaryDims: 128)

    /// meta-llama/Llama-3.1-8B: hidden 4096, 32 layers, 32 heads of 128, 8 K/V heads, FFN 14336,
    /// vocabulary 128256, a separate output head, rope θ 500000 with llama3 scaling (factor 8,
    /// low 1, high 4, original 8192), 131072 context.
    static let llama31_8B = SyntheticShape(
        name: "llama3.1-8b", architecture: "llama", vocabulary: 128_256, embedding: 4096, layers: 32, heads: 32, kvHeads: 8,
        headDim: 128, feedForward: 14_336, defaultMix: .q4_K_M, tiedOutput: false,
        extraKeys: [("vocab_size", .uint32(128_256)), ("rope.dimension_count", .uint32(128))],
        context: 131_072, ropeBase: 500_000, rmsEps: 1e-5, rotaryDims: 128, llama3Rope: (8, 1, 4, 8192))
}
