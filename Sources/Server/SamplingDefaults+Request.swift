// A request's sampling fields over the server's settings: what the engine samples with.
import LocalModels

extension LocalLanguageModel.SamplingDefaults {
    /// The server's settings `defaults` with what `request` names in their place; the penalties
    /// are the request's alone (0 when it names none). The seed is left to the caller.
    init(_ request: RequestSampling, over defaults: LocalLanguageModel.SamplingDefaults) {
        self = defaults
        if let t = request.temperature { temperature = t }
        if let k = request.topK { topK = k }
        if let p = request.topP { topP = p }
        if let p = request.minP { minP = p }
        frequencyPenalty = request.frequencyPenalty ?? 0
        presencePenalty = request.presencePenalty ?? 0
    }
}
