// Gemma 3 decoder (text part), following llama.cpp's `gemma3` graph (iSWA variant):
// - token embeddings scaled by √embedding;
// - per block: RMSNorm → Q/K/V → per-head RMSNorm of Q and K (QK-norm) → NEOX rotary → Q scaled
//   by 1/√headDim → attention (sliding window on local layers, full on every 6th) → Wo →
//   post-attention RMSNorm → residual; RMSNorm → GELU(tanh)-gated FFN → post-FFN RMSNorm → residual;
// - local layers use rope base 10000 unscaled, global layers `gemma3.rope.freq_base` and the
//   file's rope scaling;
// - final RMSNorm and the output head tied to the token embedding.
// Norm weights in GGUF already include Gemma's "+1", so they are used as stored.
import Engine

enum Gemma3: ModelFamily {
    static let architecture = "gemma3"
    /// Every `globalLayerPeriod`-th layer (index % period == period − 1) attends to everything.
    static let globalLayerPeriod = 6
    /// Rope base of the sliding-window layers (fixed by the architecture, not stored in GGUF).
    static let localRopeBase: Float = 10_000

    static func load(_ w: WeightLoader) throws(ModelError) -> Decoder {
        var hp = try w.hyperparameters(ropeBase: 1_000_000)
        hp.rotaryDims = hp.headDim
        let window = try w.int("attention.sliding_window")
        let global = try w.rope(hp, style: .neox)
        let local = RopeParameters(base: localRopeBase, style: .neox, rotaryDims: hp.rotaryDims)
        return try w.decoder(hp, embeddingScale: Float(hp.embedding).squareRoot()) { i throws(ModelError) in
            let isGlobal = i % globalLayerPeriod == globalLayerPeriod - 1
            return DecoderLayer(
                attention: try w.attention(i, hp, rope: isGlobal ? global : local, queryNorm: true, postNorm: true,
                                           window: isGlobal ? nil : window),
                feedForward: try w.feedForward(i, hp, activation: .geluTanh, postNorm: true))
        }
    }
}
