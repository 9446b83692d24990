// Llama family (Llama 2/3, Mistral 7B, SmolLM2, TinyLlama), following llama.cpp's `llama` graph:
// pre-norm blocks of RMSNorm → grouped-query attention with rotary embeddings → residual,
// RMSNorm → SwiGLU FFN → residual; final RMSNorm and the output head (tied to the token
// embedding when the file has no `output.weight`). Rotary pairs are adjacent dimensions
// ("normal" rope; the GGUF converter permuted Q/K rows for it). Llama 3's rope scaling comes as
// `rope_freqs.weight` (frequency divisors the converter computed), YaRN/linear as rope keys.
import Engine

enum Llama: ModelFamily {
    static let architecture = "llama"

    static func load(_ w: WeightLoader) throws(ModelError) -> Decoder {
        let hp = try w.hyperparameters()
        let rope = try w.rope(hp, style: .interleaved)
        return try w.decoder(hp) { i throws(ModelError) in
            DecoderLayer(attention: try w.attention(i, hp, rope: rope),
                         feedForward: try w.feedForward(i, hp, activation: .silu))
        }
    }
}
