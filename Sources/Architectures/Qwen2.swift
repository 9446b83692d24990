// Qwen 2 / 2.5, following llama.cpp's `qwen2` graph: the llama block with biases on Q, K and V
// (`attn_q.bias`, ...), NEOX-style rotary pairs (split halves), SwiGLU FFN, tied or untied head.
import Engine

enum Qwen2: ModelFamily {
    static let architecture = "qwen2"

    static func load(_ w: WeightLoader) throws(ModelError) -> Decoder {
        let hp = try w.hyperparameters()
        let rope = try w.rope(hp, style: .neox)
        return try w.decoder(hp) { i throws(ModelError) in
            DecoderLayer(attention: try w.attention(i, hp, rope: rope), feedForward: try w.feedForward(i, hp, activation: .silu))
        }
    }
}
