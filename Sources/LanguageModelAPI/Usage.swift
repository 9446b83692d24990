extension LanguageModelSession {
    /// Tokens a request (or, summed, a session) spent (Apple's `LanguageModelSession.Usage`).
    /// Input counts the whole rendered prompt, including the part already in the KV cache, which
    /// `cachedTokenCount` reports separately. Output counts every generated token: reasoning
    /// (both think markers included), answer text, tool calls and the end-of-generation token.
    public struct Usage: Sendable {
        /// Prompt tokens.
        public struct Input: Sendable, Equatable, Hashable {
            /// Tokens of the rendered prompt, cached ones included.
            public var totalTokenCount: Int
            /// Leading prompt tokens whose keys and values were already cached (not recomputed).
            public var cachedTokenCount: Int
            /// Counts of input tokens.
            public init(totalTokenCount: Int, cachedTokenCount: Int) {
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
            public init(totalTokenCount: Int, reasoningTokenCount: Int) {
                self.totalTokenCount = totalTokenCount
                self.reasoningTokenCount = reasoningTokenCount
            }
        }

        /// Prompt tokens.
        public var input: Input
        /// Generated tokens.
        public var output: Output
        /// Provider-specific values (Quanta sets none).
        public var metadata: [String: any Sendable]

        /// A usage record.
        public init(input: Input, output: Output, metadata: [String: any Sendable & Codable & Equatable] = [:]) {
            self.input = input
            self.output = output
            self.metadata = metadata
        }

        /// Input plus output tokens.
        public var totalTokenCount: Int { input.totalTokenCount + output.totalTokenCount }

        /// Nothing spent.
        static let zero = Usage(input: Input(totalTokenCount: 0, cachedTokenCount: 0),
                                output: Output(totalTokenCount: 0, reasoningTokenCount: 0))

        /// Field-by-field sum (a session's cumulative usage, or a tool loop's several requests).
        static func + (a: Usage, b: Usage) -> Usage {
            Usage(input: Input(totalTokenCount: a.input.totalTokenCount + b.input.totalTokenCount,
                               cachedTokenCount: a.input.cachedTokenCount + b.input.cachedTokenCount),
                  output: Output(totalTokenCount: a.output.totalTokenCount + b.output.totalTokenCount,
                                 reasoningTokenCount: a.output.reasoningTokenCount + b.output.reasoningTokenCount))
        }
    }
}

/// Quanta's name before FM27 for `LanguageModelSession.Usage`.
@available(*, deprecated, renamed: "LanguageModelSession.Usage")
public typealias Usage = LanguageModelSession.Usage

extension LanguageModelSession.Usage: Equatable {
    /// Equal token counts (metadata, which Quanta never sets, is not compared). Quanta's addition.
    public static func == (a: Self, b: Self) -> Bool { a.input == b.input && a.output == b.output }
}
