// Mistral 3 (Ministral / Mistral Small 3.x text decoder), following llama.cpp's `mistral3`
// graph: the llama block (normal rope, SwiGLU) with YaRN rope scaling and its betas from the
// GGUF, and optional Llama-4-style attention temperature: Q of position p times
// 1 + `attention.temperature_scale` · log(⌊p / original_context⌋ + 1). Mistral 7B / Nemo files
// say `llama` and load as Llama.
import Engine

enum Mistral3: ModelFamily {
    static let architecture = "mistral3"

    static func load(_ w: WeightLoader) throws(ModelError) -> Decoder {
        let hp = try w.hyperparameters()
        let rope = try w.rope(hp, style: .interleaved)
        let temperatureScale = try w.float("attention.temperature_scale", default: 0)
        let temperature = temperatureScale == 0 ? nil : (scale: temperatureScale, floor: rope.originalContext, offset: Float(0))
        return try w.decoder(hp) { i throws(ModelError) in
            DecoderLayer(attention: try w.attention(i, hp, rope: rope, temperature: temperature),
                         feedForward: try w.feedForward(i, hp, activation: .silu))
        }
    }
}
