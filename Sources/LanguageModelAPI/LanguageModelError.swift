import Foundation

/// Why a model could not serve a request (Apple's `LanguageModelError`, every FM27 case). Quanta's
/// local executor throws `contextSizeExceeded`, `unsupportedCapability`,
/// `unsupportedTranscriptContent` and `unsupportedGenerationGuide`, before any compute (and
/// `contextSizeExceeded` also when an answer does not end within the window); the other
/// cases exist so code written for Apple's models (and other executors plugged into
/// `LanguageModelSession`) compiles and can report them.
public enum LanguageModelError: Error, LocalizedError, CustomDebugStringConvertible, CustomStringConvertible {
    /// The rendered prompt does not fit in the context window (with room for one token), or the
    /// answer did not end within it (then `tokenCount` is one more than the window).
    case contextSizeExceeded(ContextSizeExceeded)
    /// The provider is throttling requests.
    case rateLimited(RateLimited)
    /// A safety filter blocked the request or the response.
    case guardrailViolation(GuardrailViolation)
    /// The model declined to answer.
    case refusal(Refusal)
    /// The request needs a capability the model does not declare.
    case unsupportedCapability(UnsupportedCapability)
    /// The transcript has content the model cannot render (an image, or no prompt at the end).
    case unsupportedTranscriptContent(UnsupportedTranscriptContent)
    /// A guided-generation schema uses a guide that constrained decoding cannot enforce.
    case unsupportedGenerationGuide(UnsupportedGenerationGuide)
    /// The model does not handle the language of the request.
    case unsupportedLanguageOrLocale(UnsupportedLanguageOrLocale)
    /// The request took longer than allowed.
    case timeout(Timeout)

    /// The numbers of an oversized request.
    public struct ContextSizeExceeded: Sendable {
        /// The model's configured context window, in tokens.
        public var contextSize: Int
        /// Tokens the request needs.
        public var tokenCount: Int
        /// A human-readable explanation.
        public var debugDescription: String
        /// Provider-specific values.
        public var metadata: [String: any Sendable]
        /// The numbers and an explanation.
        public init(contextSize: Int, tokenCount: Int, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.contextSize = contextSize
            self.tokenCount = tokenCount
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
        /// The numbers, and a message derived from them.
        public init(contextSize: Int, tokenCount: Int) {
            self.init(contextSize: contextSize, tokenCount: tokenCount, debugDescription:
                "the prompt needs \(tokenCount) tokens but the context window holds \(contextSize) (one more is needed to respond)")
        }
    }

    /// When requests may resume.
    public struct RateLimited: Sendable {
        /// When the limit resets, if known.
        public var resetDate: Date?
        /// A human-readable explanation.
        public var debugDescription: String
        /// Provider-specific values.
        public var metadata: [String: any Sendable]
        /// The reset date and an explanation.
        public init(resetDate: Date?, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.resetDate = resetDate
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// A blocked request or response.
    public struct GuardrailViolation: Sendable {
        /// A human-readable explanation.
        public var debugDescription: String
        /// Provider-specific values.
        public var metadata: [String: any Sendable]
        /// An explanation.
        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// A declined request.
    public struct Refusal: Sendable {
        /// A human-readable explanation.
        public var debugDescription: String
        /// Provider-specific values.
        public var metadata: [String: any Sendable]
        /// The model's explanation of the refusal.
        let explanationText: String
        /// The model's explanation and a debugging message.
        public init(explanation: String, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            explanationText = explanation
            self.debugDescription = debugDescription
            self.metadata = metadata
        }

        /// The model's explanation as a response.
        public var explanation: LanguageModelSession.Response<String> {
            get async throws {
                LanguageModelSession.Response(content: explanationText, rawContent: explanationText.generatedContent,
                                              transcriptEntries: [][...], usage: .zero)
            }
        }

        /// The model's explanation as a stream (one snapshot).
        public var explanationStream: LanguageModelSession.ResponseStream<String> {
            LanguageModelSession.ResponseStream(single: .init(content: explanationText, rawContent: explanationText.generatedContent,
                                                              transcriptEntries: [][...], usage: .zero),
                                                response: .init(content: explanationText, rawContent: explanationText.generatedContent,
                                                                transcriptEntries: [][...], usage: .zero))
        }
    }

    /// The missing capability.
    public struct UnsupportedCapability: Sendable {
        /// What the request needed.
        public var capability: LanguageModelCapabilities.Capability
        /// A human-readable explanation.
        public var debugDescription: String
        /// Provider-specific values.
        public var metadata: [String: any Sendable]
        /// The capability and an explanation.
        public init(capability: LanguageModelCapabilities.Capability, debugDescription: String,
                    metadata: [String: any Sendable] = [:]) {
            self.capability = capability
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// The content that cannot be rendered.
    public struct UnsupportedTranscriptContent: Sendable {
        /// The offending entries (empty when the problem is what is missing).
        public var unsupportedContent: [Transcript.Entry]
        /// A human-readable explanation.
        public var debugDescription: String
        /// Provider-specific values.
        public var metadata: [String: any Sendable]
        /// The entries and the reason.
        public init(unsupportedContent: [Transcript.Entry], debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.unsupportedContent = unsupportedContent
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// The schema whose guide cannot be enforced.
    public struct UnsupportedGenerationGuide: Sendable {
        /// The schema's name, if it has one.
        public var schemaName: String?
        /// A human-readable explanation.
        public var debugDescription: String
        /// Provider-specific values.
        public var metadata: [String: any Sendable]
        /// The schema and the reason.
        public init(schemaName: String?, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.schemaName = schemaName
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// The unsupported language.
    public struct UnsupportedLanguageOrLocale: Sendable {
        /// The language of the request.
        public var languageCode: Locale.LanguageCode
        /// A human-readable explanation.
        public var debugDescription: String
        /// Provider-specific values.
        public var metadata: [String: any Sendable]
        /// The language and an explanation.
        public init(languageCode: Locale.LanguageCode, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.languageCode = languageCode
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// A request that ran out of time.
    public struct Timeout: Sendable {
        /// A human-readable explanation.
        public var debugDescription: String
        /// Provider-specific values.
        public var metadata: [String: any Sendable]
        /// An explanation.
        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// The case's explanation.
    public var debugDescription: String {
        switch self {
        case let .contextSizeExceeded(e): return e.debugDescription
        case let .rateLimited(e): return e.debugDescription
        case let .guardrailViolation(e): return e.debugDescription
        case let .refusal(e): return e.debugDescription
        case let .unsupportedCapability(e): return e.debugDescription
        case let .unsupportedTranscriptContent(e): return e.debugDescription
        case let .unsupportedGenerationGuide(e): return e.debugDescription
        case let .unsupportedLanguageOrLocale(e): return e.debugDescription
        case let .timeout(e): return e.debugDescription
        }
    }

    /// What went wrong, in one sentence (shown by `localizedDescription`, also on Linux).
    public var errorDescription: String? {
        switch self {
        case .contextSizeExceeded: return "The request does not fit in the model's context window: \(debugDescription)."
        case .rateLimited: return "Too many requests: \(debugDescription)."
        case .guardrailViolation: return "The request or response was blocked by a guardrail: \(debugDescription)."
        case .refusal: return "The model declined to respond: \(debugDescription)."
        case .unsupportedCapability: return "The model does not support what the request needs: \(debugDescription)."
        case .unsupportedTranscriptContent: return "The transcript has content the model cannot read: \(debugDescription)."
        case .unsupportedGenerationGuide: return "The schema uses a guide that cannot be enforced: \(debugDescription)."
        case .unsupportedLanguageOrLocale: return "The model does not support this language: \(debugDescription)."
        case .timeout: return "The request timed out: \(debugDescription)."
        }
    }

    /// The case's explanation (as `debugDescription`).
    public var description: String { debugDescription }
}

extension LanguageModelError: Equatable {
    /// Same case with equal fields; metadata is not compared. Quanta's addition, so tests and
    /// callers can match errors with `==`.
    public static func == (a: Self, b: Self) -> Bool {
        switch (a, b) {
        case let (.contextSizeExceeded(x), .contextSizeExceeded(y)):
            return x.contextSize == y.contextSize && x.tokenCount == y.tokenCount && x.debugDescription == y.debugDescription
        case let (.rateLimited(x), .rateLimited(y)): return x.resetDate == y.resetDate && x.debugDescription == y.debugDescription
        case let (.unsupportedCapability(x), .unsupportedCapability(y)):
            return x.capability == y.capability && x.debugDescription == y.debugDescription
        case let (.unsupportedTranscriptContent(x), .unsupportedTranscriptContent(y)):
            return x.unsupportedContent == y.unsupportedContent && x.debugDescription == y.debugDescription
        case let (.unsupportedGenerationGuide(x), .unsupportedGenerationGuide(y)):
            return x.schemaName == y.schemaName && x.debugDescription == y.debugDescription
        case let (.unsupportedLanguageOrLocale(x), .unsupportedLanguageOrLocale(y)):
            return x.languageCode == y.languageCode && x.debugDescription == y.debugDescription
        case let (.guardrailViolation(x), .guardrailViolation(y)): return x.debugDescription == y.debugDescription
        case let (.refusal(x), .refusal(y)):
            return x.explanationText == y.explanationText && x.debugDescription == y.debugDescription
        case let (.timeout(x), .timeout(y)): return x.debugDescription == y.debugDescription
        default: return false
        }
    }
}
