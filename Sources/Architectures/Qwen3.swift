// Qwen 3 (dense), following llama.cpp's `qwen3` graph: the llama block with a per-head RMSNorm
// of Q and K before the rotary embedding (`attn_q_norm`, `attn_k_norm`, `[headDim]`), no
// biases, NEOX-style rotary pairs, SwiGLU FFN; head_dim may differ from embedding / heads.
import Engine

enum Qwen3: ModelFamily {
    static let architecture = "qwen3"

    static func load(_ w: WeightLoader) throws(ModelError) -> Decoder {
        let hp = try w.hyperparameters()
        let rope = try w.rope(hp, style: .neox)
        return try w.decoder(hp) { i throws(ModelError) in
            DecoderLayer(attention: try w.attention(i, hp, rope: rope, queryNorm: true),
                         feedForward: try w.feedForward(i, hp, activation: .silu))
        }
    }
}
