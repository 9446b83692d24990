/// How a response is sampled, how long it may be and whether it may call tools (Apple's
/// `GenerationOptions`).
public struct GenerationOptions: Sendable, Equatable, Hashable, Codable {
    /// How the next token is chosen.
    public struct SamplingMode: Sendable, Equatable, Hashable, Codable {
        /// The strategy, readable.
        public enum Kind: Sendable, Equatable, Hashable, Codable {
            /// The most likely token (lowest id on ties).
            case greedy
            /// A draw among the `k` most likely tokens.
            case randomTopK(_: Int, seed: UInt64?)
            /// A draw among the smallest set of tokens whose probability reaches the threshold.
            case randomProbabilityThreshold(_: Double, seed: UInt64?)

            /// Quanta's name before FM27: `.randomTopK`.
            @available(*, deprecated, renamed: "randomTopK")
            public static func top(_ k: Int, seed: UInt64?) -> Kind { .randomTopK(k, seed: seed) }
            /// Quanta's name before FM27: `.randomProbabilityThreshold`.
            @available(*, deprecated, renamed: "randomProbabilityThreshold")
            public static func probabilityThreshold(_ p: Double, seed: UInt64?) -> Kind {
                .randomProbabilityThreshold(p, seed: seed)
            }
        }

        /// The strategy.
        public let kind: Kind

        /// Always the most likely token: deterministic.
        public static var greedy: SamplingMode { SamplingMode(kind: .greedy) }

        /// Top-k sampling; the same seed gives the same tokens.
        public static func random(top k: Int, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(kind: .randomTopK(k, seed: seed))
        }

        /// Nucleus (top-p) sampling; the same seed gives the same tokens.
        public static func random(probabilityThreshold: Double, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(kind: .randomProbabilityThreshold(probabilityThreshold, seed: seed))
        }
    }

    /// Whether the model may, must or must not call the session's tools.
    public struct ToolCallingMode: Sendable, Equatable, Hashable, Codable {
        /// The three policies, readable.
        public enum Kind: Sendable, Equatable, Hashable, Codable {
            /// The model decides (the default).
            case allowed
            /// The first generation of the request must be a call of one of the tools; it is
            /// constrained to one valid call.
            case required
            /// Tools are not offered to the model.
            case disallowed
        }

        /// The policy.
        public var kind: Kind

        /// The model decides.
        public static let allowed = ToolCallingMode(kind: .allowed)
        /// The model must call a tool first.
        public static let required = ToolCallingMode(kind: .required)
        /// The model is not offered tools.
        public static let disallowed = ToolCallingMode(kind: .disallowed)
    }

    /// The sampling strategy; nil = the model default (top-k 40, top-p 0.95, min-p 0.05).
    public var sampling: SamplingMode?
    /// Softmax temperature; nil = 0.8; 0 = greedy. Must be finite and ≥ 0.
    public var temperature: Double?
    /// Upper bound on generated tokens (reasoning included); nil = as many as the context holds.
    /// It is clamped to the room the context has left after the prompt; it must be ≥ 1.
    public var maximumResponseTokens: Int?
    /// Whether tools may be called; nil = `.allowed`.
    public var toolCallingMode: ToolCallingMode?

    /// Apple's FM27 spelling of `sampling`.
    public var samplingMode: SamplingMode? {
        get { sampling }
        set { sampling = newValue }
    }

    /// Options; every nil means "model default".
    public init(samplingMode: SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil) {
        self.init(sampling: samplingMode, temperature: temperature, maximumResponseTokens: maximumResponseTokens)
    }

    /// Options with a tool-calling policy.
    public init(samplingMode: SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil,
                toolCallingMode: ToolCallingMode?) {
        self.init(sampling: samplingMode, temperature: temperature, maximumResponseTokens: maximumResponseTokens)
        self.toolCallingMode = toolCallingMode
    }

    /// The FM26 spelling (`sampling:`), still in Apple's FM27 interface.
    public init(sampling: SamplingMode?, temperature: Double? = nil, maximumResponseTokens: Int? = nil) {
        self.sampling = sampling
        self.temperature = temperature
        self.maximumResponseTokens = maximumResponseTokens
    }

    /// Why these options cannot be used, or nil when they can.
    package var invalidReason: String? {
        if let m = maximumResponseTokens, m < 1 { return "maximumResponseTokens must be at least 1, got \(m)" }
        if let t = temperature, !(t.isFinite && t >= 0) { return "temperature must be a finite number ≥ 0, got \(t)" }
        switch sampling?.kind {
        case let .randomTopK(k, _)? where k < 1: return "random(top:) needs k ≥ 1, got \(k)"
        case let .randomProbabilityThreshold(p, _)? where !(p > 0 && p <= 1):
            return "random(probabilityThreshold:) needs a threshold in (0, 1], got \(p)"
        default: return nil
        }
    }
}
