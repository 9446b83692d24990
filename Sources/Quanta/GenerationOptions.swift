/// How a response is sampled and how long it may be (Apple's `GenerationOptions`).
public struct GenerationOptions: Sendable, Equatable, Hashable, Codable {
    /// How the next token is chosen.
    public struct SamplingMode: Sendable, Equatable, Hashable, Codable {
        /// The strategy, readable.
        public enum Kind: Sendable, Equatable, Hashable, Codable {
            /// The most likely token (lowest id on ties).
            case greedy
            /// A draw among the `k` most likely tokens.
            case top(Int, seed: UInt64?)
            /// A draw among the smallest set of tokens whose probability reaches the threshold.
            case probabilityThreshold(Double, seed: UInt64?)
        }

        /// The strategy.
        public let kind: Kind

        /// Always the most likely token: deterministic.
        public static var greedy: SamplingMode { SamplingMode(kind: .greedy) }

        /// Top-k sampling; the same seed gives the same tokens.
        public static func random(top k: Int, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(kind: .top(k, seed: seed))
        }

        /// Nucleus (top-p) sampling; the same seed gives the same tokens.
        public static func random(probabilityThreshold: Double, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(kind: .probabilityThreshold(probabilityThreshold, seed: seed))
        }
    }

    /// The sampling strategy; nil = the model default (top-k 40, top-p 0.95, min-p 0.05).
    public var sampling: SamplingMode?
    /// Softmax temperature; nil = 0.8; 0 = greedy; negative values are treated as 0.
    public var temperature: Double?
    /// Upper bound on generated tokens (reasoning included); nil = as many as the context holds.
    /// It is clamped to the room the context has left after the prompt.
    public var maximumResponseTokens: Int?

    /// Options; every nil means "model default".
    public init(sampling: SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil) {
        self.sampling = sampling
        self.temperature = temperature
        self.maximumResponseTokens = maximumResponseTokens
    }
}
