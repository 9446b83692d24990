/// Why a model could not serve a request (Apple's `LanguageModelError`, the cases that apply to
/// a local engine). Thrown before any compute unless noted.
public enum LanguageModelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The rendered prompt does not fit in the context window (with room for one token).
    case contextSizeExceeded(ContextSizeExceeded)
    /// The request needs a capability the model does not declare (e.g. a reasoning level on a
    /// model without think markers).
    case unsupportedCapability(UnsupportedCapability)
    /// The transcript has content the model cannot render (a non-text segment, or no prompt).
    case unsupportedTranscriptContent(UnsupportedTranscriptContent)

    /// The numbers of an oversized request.
    public struct ContextSizeExceeded: Sendable, Equatable {
        /// The model's configured context window, in tokens.
        public var contextSize: Int
        /// Tokens the rendered prompt needs.
        public var tokenCount: Int
        /// A human-readable explanation.
        public var debugDescription: String
        /// The numbers, and a message derived from them.
        public init(contextSize: Int, tokenCount: Int, debugDescription: String? = nil) {
            self.contextSize = contextSize
            self.tokenCount = tokenCount
            self.debugDescription = debugDescription
                ?? "the prompt needs \(tokenCount) tokens but the context window holds \(contextSize) (one more is needed to respond)"
        }
    }

    /// The missing capability.
    public struct UnsupportedCapability: Sendable, Equatable {
        /// What the request needed.
        public var capability: LanguageModelCapabilities.Capability
        /// A human-readable explanation.
        public var debugDescription: String
        /// The capability, and a message naming it.
        public init(capability: LanguageModelCapabilities.Capability, debugDescription: String? = nil) {
            self.capability = capability
            self.debugDescription = debugDescription ?? "the model does not support \(capability)"
        }
    }

    /// The content that cannot be rendered.
    public struct UnsupportedTranscriptContent: Sendable, Equatable {
        /// The offending entries (empty when the problem is what is missing).
        public var unsupportedContent: [Transcript.Entry]
        /// A human-readable explanation.
        public var debugDescription: String
        /// The entries and the reason.
        public init(unsupportedContent: [Transcript.Entry], debugDescription: String) {
            self.unsupportedContent = unsupportedContent
            self.debugDescription = debugDescription
        }
    }

    /// The case's `debugDescription`.
    public var description: String {
        switch self {
        case let .contextSizeExceeded(e): return e.debugDescription
        case let .unsupportedCapability(e): return e.debugDescription
        case let .unsupportedTranscriptContent(e): return e.debugDescription
        }
    }
}
