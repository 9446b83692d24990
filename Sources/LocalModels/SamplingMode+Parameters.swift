import LanguageModelAPI
import Sampling

extension GenerationOptions {
    /// The engine's sampler settings for these options: the request's temperature and sampling
    /// mode, the model's `defaults` for what the request leaves out (and for min-p and the
    /// penalties, which FM27 options do not have). `fallbackSeed` is used when the mode
    /// names no seed. The options must be valid (`invalidReason == nil`).
    func samplingParameters(defaults: LocalLanguageModel.SamplingDefaults = .init(), fallbackSeed: UInt64) -> SamplingParameters {
        let temperature = Float(max(0, temperature ?? defaults.temperature))
        let minP = Float(defaults.minP)
        var parameters: SamplingParameters
        switch sampling?.kind {
        case _ where temperature == 0, .greedy?:
            parameters = .greedy
        case let .randomTopK(k, seed)?:
            parameters = SamplingParameters(temperature: temperature, topK: max(1, k), topP: 1, minP: minP, seed: seed ?? fallbackSeed)
        case let .randomProbabilityThreshold(p, seed)?:
            parameters = SamplingParameters(temperature: temperature, topK: 0, topP: Float(min(1, max(1e-6, p))), minP: minP,
                                            seed: seed ?? fallbackSeed)
        case nil:
            parameters = SamplingParameters(temperature: temperature, topK: defaults.topK, topP: Float(defaults.topP), minP: minP,
                                            seed: fallbackSeed)
        }
        parameters.repetitionPenalty = Float(defaults.repetitionPenalty)
        parameters.repetitionWindow = defaults.repetitionWindow
        parameters.frequencyPenalty = Float(defaults.frequencyPenalty)
        parameters.presencePenalty = Float(defaults.presencePenalty)
        return parameters
    }
}
