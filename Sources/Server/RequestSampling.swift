// The sampling fields both endpoints take, read into the sampler settings of one request.
import LocalModels

extension LocalLanguageModel.SamplingDefaults {
    /// The server's settings `defaults` with what the request names in their place:
    /// `temperature` (0–2), `top_k` (0 = off), `top_p` (in (0, 1]), `min_p` (0–1), any together,
    /// and OpenAI's `frequency_penalty` / `presence_penalty` (−2…2, over the generated tokens).
    /// The seed is read apart (`seed`), as each endpoint passes it its own way.
    init(request fields: RequestFields, defaults: LocalLanguageModel.SamplingDefaults) throws(APIError) {
        self = defaults
        if let t = try fields.number("temperature", in: 0...2) { temperature = t }
        if let k = try fields.integer("top_k", in: 0...1_000_000) { topK = k }
        if let p = try fields.number("top_p", in: 0...1) {
            guard p > 0 else { throw APIError.invalid("top_p", "top_p must be above 0") }
            topP = p
        }
        if let p = try fields.number("min_p", in: 0...1) { minP = p }
        frequencyPenalty = try fields.number("frequency_penalty", in: -2...2) ?? 0
        presencePenalty = try fields.number("presence_penalty", in: -2...2) ?? 0
    }
}

extension RequestFields {
    /// `seed` as the sampler's 64-bit seed (negative values keep their bits).
    func seed() throws(APIError) -> UInt64? {
        try integer("seed", in: Int(Int64.min)...Int(Int64.max)).map { UInt64(bitPattern: Int64($0)) }
    }
}
