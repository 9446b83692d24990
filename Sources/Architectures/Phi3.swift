// Phi-3 / Phi-3.5 / Phi-4-mini, following llama.cpp's `phi3` graph: Q, K and V in one fused
// `attn_qkv` (rows: Q, then K, then V), gate and up in one `ffn_up` of 2·feedForward rows (gate
// first), NEOX-style rotary pairs, optionally partial (`rope.dimension_count`), LongRoPE's
// short/long frequency factors with `rope.scaling.attn_factor`, SwiGLU FFN. llama.cpp turns the
// sliding window of the GGUF off for this family, and so do we.
import Engine

enum Phi3: ModelFamily {
    static let architecture = "phi3"

    static func load(_ w: WeightLoader) throws(ModelError) -> Decoder {
        let hp = try w.hyperparameters()
        let rope = try w.rope(hp, style: .neox)
        return try w.decoder(hp) { i throws(ModelError) in
            DecoderLayer(attention: try w.attention(i, hp, rope: rope), feedForward: try w.feedForward(i, hp, activation: .silu))
        }
    }
}
