import CommandLineSpec
import Quanta

/// The settings `/set` changes. The temperature and reply length go with each request; the other
/// sampler values are the model's load-time defaults (FM27 options have no min-p or repetition
/// penalty), so changing one reloads the model (its weights are shared, so this is quick) and
/// the next turn computes the conversation's KV cache again.
struct ChatSettings: Equatable {
    var sampling: LocalLanguageModel.SamplingDefaults
    /// Reply length in tokens; nil = until the context is full.
    var maximumTokens: Int?
    /// Whether a conversation that no longer fits drops its oldest turns (llama.cpp's context
    /// shift) instead of asking for `/clear`.
    var contextShift = true

    /// The names `/set` accepts (llama.cpp's and ollama's spellings).
    static let names = ["temperature", "top_k", "top_p", "min_p", "repeat_penalty", "repeat_last_n", "seed", "num_predict",
                        "context_shift"]

    /// The options of a request.
    var options: GenerationOptions {
        GenerationOptions(samplingMode: sampling.temperature == 0 ? .greedy : nil, temperature: sampling.temperature,
                          maximumResponseTokens: maximumTokens)
    }

    /// One line per setting, for `/set` alone.
    var summary: String {
        "temperature \(sampling.temperature), top_k \(sampling.topK), top_p \(sampling.topP), min_p \(sampling.minP), "
            + "repeat_penalty \(sampling.repetitionPenalty), repeat_last_n \(sampling.repetitionWindow), "
            + "seed \(sampling.seed.map(String.init) ?? "-1 (random)"), num_predict \(maximumTokens.map(String.init) ?? "-1"), "
            + "context_shift \(contextShift ? "on" : "off")"
    }

    /// Sets `name` to `value`, with the ranges the command-line options have.
    mutating func set(_ name: String, _ value: String) throws(ChatError) {
        func number(_ range: ClosedRange<Double>) throws(ChatError) -> Double {
            guard let v = Double(value), v.isFinite, range.contains(v) else {
                throw ChatError("\(name) must be a number in \(range.lowerBound)...\(range.upperBound), got \(value)")
            }
            return v
        }
        func integer(_ range: ClosedRange<Int>) throws(ChatError) -> Int {
            guard let v = Int(value), range.contains(v) else {
                throw ChatError("\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), got \(value)")
            }
            return v
        }
        switch name {
        case "temperature", "temp": sampling.temperature = try number(0...100)
        case "top_k": sampling.topK = try integer(0...1_000_000)
        case "top_p": sampling.topP = try number(0.000001...1)
        case "min_p": sampling.minP = try number(0...1)
        case "repeat_penalty": sampling.repetitionPenalty = try number(0.01...100)
        case "repeat_last_n": sampling.repetitionWindow = try integer(0...1_000_000)
        case "seed":
            let seed = try integer(-1...Int.max)
            sampling.seed = seed < 0 ? nil : UInt64(seed)
        case "num_predict", "n_predict":
            let count = try integer(-1...1_000_000_000)
            guard count != 0 else { throw ChatError("num_predict must be -1 or at least 1") }
            maximumTokens = count < 0 ? nil : count
        case "context_shift":
            guard value == "on" || value == "off" else { throw ChatError("context_shift is on or off, got \(value)") }
            contextShift = value == "on"
        default:
            let hint = closestMatch(to: name, among: Self.names + ["system"]).map { "; did you mean \($0)?" } ?? ""
            throw ChatError("unknown setting \(name)\(hint) (\(Self.names.joined(separator: ", ")), or /set system TEXT)")
        }
    }
}
