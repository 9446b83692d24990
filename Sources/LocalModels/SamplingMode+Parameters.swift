import LanguageModelAPI
import Sampling

extension GenerationOptions {
    /// The engine's sampler settings for these options: the request's temperature and sampling
    /// mode, the model's `defaults` for what the request leaves out (and for min-p and the
    /// repetition penalty, which FM27 options do not have). `fallbackSeed` is used when the mode
    /// names no seed. The options must be valid (`invalidReason == nil`).
    func samplingParameters(defaults: LocalLanguageModel.SamplingDefaults = .init(), fallbackSeed: UInt64) -> SamplingParameters {
        let temperature = Float(max(0, temperature ?? defaults.temperature))
        let penalty = Float(defaults.repetitionPenalty), window = defaults.repetitionWindow, minP = Float(defaults.minP)
        let greedy = SamplingParameters(temperature: 0, topK: 1, topP: 1, minP: 0, repetitionPenalty: penalty,
                                        repetitionWindow: window)
        if temperature == 0 { return greedy }
        switch sampling?.kind {
        case .greedy?:
            return greedy
        case let .randomTopK(k, seed)?:
            return SamplingParameters(temperature: temperature, topK: max(1, k), topP: 1, minP: minP, repetitionPenalty: penalty,
                                      repetitionWindow: window, seed: seed ?? fallbackSeed)
        case let .randomProbabilityThreshold(p, seed)?:
            return SamplingParameters(temperature: temperature, topK: 0, topP: Float(min(1, max(1e-6, p))), minP: minP,
                                      repetitionPenalty: penalty, repetitionWindow: window, seed: seed ?? fallbackSeed)
        case nil:
            return SamplingParameters(temperature: temperature, topK: defaults.topK, topP: Float(defaults.topP), minP: minP,
                                      repetitionPenalty: penalty, repetitionWindow: window, seed: fallbackSeed)
        }
    }
}
