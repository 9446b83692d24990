// IBM Granite 3.x (dense), following llama.cpp's `granite` graph: the llama block with four
// multipliers from the GGUF: token embeddings × `embedding_scale`, each sub-block's output ×
// `residual_scale` before the residual add, attention scores × `attention.scale` (instead of
// 1/√headDim), logits ÷ `logit_scale`.
import Engine

enum Granite: ModelFamily {
    static let architecture = "granite"

    static func load(_ w: WeightLoader) throws(ModelError) -> Decoder {
        let hp = try w.hyperparameters()
        let rope = try w.rope(hp, style: .interleaved)
        let attentionScale = try w.float("attention.scale", default: 0)
        let logitScale = try w.float("logit_scale")
        guard logitScale != 0 else { throw .badHyperparameter(key: "granite.logit_scale", reason: "zero") }
        return try w.decoder(hp, embeddingScale: try w.float("embedding_scale", default: 1),
                             residualScale: try w.float("residual_scale", default: 1), logitScale: 1 / logitScale) { i throws(ModelError) in
            DecoderLayer(attention: try w.attention(i, hp, rope: rope, queryScale: attentionScale == 0 ? nil : attentionScale),
                         feedForward: try w.feedForward(i, hp, activation: .silu))
        }
    }
}
