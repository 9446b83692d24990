/// Tokens a request (or, summed, a session) spent. Input counts the whole rendered prompt,
/// including the part already in the KV cache, which `cachedTokenCount` reports separately.
/// Output counts every generated token: reasoning (both think markers included), answer text
/// and the end-of-generation token.
public struct Usage: Sendable, Equatable, Hashable {
    /// Prompt tokens.
    public struct Input: Sendable, Equatable, Hashable {
        /// Tokens of the rendered prompt, cached ones included.
        public var totalTokenCount: Int
        /// Leading prompt tokens whose keys and values were already cached (not recomputed).
        public var cachedTokenCount: Int
        /// Counts of input tokens.
        public init(totalTokenCount: Int = 0, cachedTokenCount: Int = 0) {
            self.totalTokenCount = totalTokenCount
            self.cachedTokenCount = cachedTokenCount
        }
    }

    /// Generated tokens.
    public struct Output: Sendable, Equatable, Hashable {
        /// Every generated token.
        public var totalTokenCount: Int
        /// The part of `totalTokenCount` spent in the thinking block.
        public var reasoningTokenCount: Int
        /// Counts of output tokens.
        public init(totalTokenCount: Int = 0, reasoningTokenCount: Int = 0) {
            self.totalTokenCount = totalTokenCount
            self.reasoningTokenCount = reasoningTokenCount
        }
    }

    /// Prompt tokens.
    public var input: Input
    /// Generated tokens.
    public var output: Output
    /// Input plus output tokens.
    public var totalTokenCount: Int { input.totalTokenCount + output.totalTokenCount }

    /// A usage record (zero by default).
    public init(input: Input = Input(), output: Output = Output()) {
        self.input = input
        self.output = output
    }

    /// Field-by-field sum (a session's cumulative usage).
    public static func + (a: Usage, b: Usage) -> Usage {
        Usage(input: Input(totalTokenCount: a.input.totalTokenCount + b.input.totalTokenCount,
                           cachedTokenCount: a.input.cachedTokenCount + b.input.cachedTokenCount),
              output: Output(totalTokenCount: a.output.totalTokenCount + b.output.totalTokenCount,
                             reasoningTokenCount: a.output.reasoningTokenCount + b.output.reasoningTokenCount))
    }
}
