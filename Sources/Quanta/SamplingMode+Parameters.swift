import Sampling

extension GenerationOptions {
    /// The engine's sampler settings for these options. `fallbackSeed` is used when the mode
    /// names no seed. The options must be valid (`invalidReason == nil`).
    func samplingParameters(fallbackSeed: UInt64) -> SamplingParameters {
        let temperature = Float(max(0, temperature ?? 0.8))
        switch sampling?.kind {
        case .greedy?:
            return .greedy
        case _ where temperature == 0:
            return .greedy
        case let .randomTopK(k, seed)?:
            return SamplingParameters(temperature: temperature, topK: max(1, k), topP: 1, minP: 0, seed: seed ?? fallbackSeed)
        case let .randomProbabilityThreshold(p, seed)?:
            return SamplingParameters(temperature: temperature, topK: 0, topP: Float(min(1, max(1e-6, p))), minP: 0,
                                      seed: seed ?? fallbackSeed)
        case nil:
            return SamplingParameters(temperature: temperature, seed: fallbackSeed)
        }
    }
}
