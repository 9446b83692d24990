// The sampling fields both endpoints take, as the request gives them (the engine's settings are
// made from them and the server's defaults in `SamplingDefaults+Request.swift`).

/// What a request names of its sampling: each field nil when absent.
struct RequestSampling: Equatable {
    /// 0–2; 0 is greedy.
    var temperature: Double?
    /// 0 = off.
    var topK: Int?
    /// In (0, 1]; 1 = off.
    var topP: Double?
    /// 0–1; 0 = off.
    var minP: Double?
    /// OpenAI's −2…2, over the generated tokens.
    var frequencyPenalty: Double?
    var presencePenalty: Double?
    /// The sampler's seed (negative values keep their bits).
    var seed: UInt64?

    /// Reads `temperature`, `top_k`, `top_p`, `min_p` (any together), `frequency_penalty`,
    /// `presence_penalty` and `seed`.
    init(_ fields: RequestFields) throws(APIError) {
        temperature = try fields.number("temperature", in: 0...2)
        topK = try fields.integer("top_k", in: 0...1_000_000)
        topP = try fields.number("top_p", in: 0...1)
        if topP == 0 { throw APIError.invalid("top_p", "top_p must be above 0") }
        minP = try fields.number("min_p", in: 0...1)
        frequencyPenalty = try fields.number("frequency_penalty", in: -2...2)
        presencePenalty = try fields.number("presence_penalty", in: -2...2)
        seed = try fields.integer("seed", in: Int(Int64.min)...Int(Int64.max)).map { UInt64(bitPattern: Int64($0)) }
    }
}
