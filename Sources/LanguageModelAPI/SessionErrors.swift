import Foundation

extension LanguageModelSession {
    /// Errors of the session itself (the model's are `LanguageModelError`).
    public enum Error: Swift.Error, LocalizedError, CustomDebugStringConvertible, Sendable, Equatable, Hashable {
        /// A request was made while another was still running.
        case concurrentRequests
        /// The transcript was changed while a request was running.
        case transcriptMutationWhileResponding

        /// A technical explanation.
        public var debugDescription: String {
            switch self {
            case .concurrentRequests:
                return "a request was made while the session was still responding to another; await it (or end its stream) first"
            case .transcriptMutationWhileResponding:
                return "the transcript was changed while the session was responding; the response was not recorded"
            }
        }

        /// What went wrong, in one sentence (shown by `localizedDescription`, also on Linux).
        public var errorDescription: String? {
            switch self {
            case .concurrentRequests: return "The session is already responding to a request."
            case .transcriptMutationWhileResponding: return "The transcript was changed while the session was responding."
            }
        }
    }

    /// A tool threw while the session was calling it; the session's request fails with this.
    public struct ToolCallError: Swift.Error, LocalizedError {
        /// The tool that failed.
        public var tool: any Tool
        /// What the tool threw.
        public var underlyingError: any Swift.Error
        /// The tool and its error.
        public init(tool: any Tool, underlyingError: any Swift.Error) {
            self.tool = tool
            self.underlyingError = underlyingError
        }
        /// Names the tool and its error.
        public var errorDescription: String? {
            "The tool \(tool.name) failed: \(underlyingError.localizedDescription)"
        }
    }

    /// The FM26 errors, still in Apple's FM27 interface (Quanta throws `LanguageModelError`).
    public enum GenerationError: Swift.Error, LocalizedError {
        case exceededContextWindowSize(Context)
        case assetsUnavailable(Context)
        case guardrailViolation(Context)
        case unsupportedGuide(Context)
        case unsupportedLanguageOrLocale(Context)
        case decodingFailure(Context)
        case rateLimited(Context)
        case concurrentRequests(Context)
        case refusal(Refusal, Context)

        /// The explanation of an error.
        public struct Context: Sendable {
            /// A technical explanation.
            public let debugDescription: String
            /// An explanation.
            public init(debugDescription: String) { self.debugDescription = debugDescription }
        }

        /// A refusal and the entries that led to it.
        public struct Refusal: Sendable {
            let transcriptEntries: [Transcript.Entry]
            /// The refusal of these entries.
            public init(transcriptEntries: [Transcript.Entry]) { self.transcriptEntries = transcriptEntries }
        }

        private var context: Context {
            switch self {
            case let .exceededContextWindowSize(c), let .assetsUnavailable(c), let .guardrailViolation(c),
                 let .unsupportedGuide(c), let .unsupportedLanguageOrLocale(c), let .decodingFailure(c),
                 let .rateLimited(c), let .concurrentRequests(c), let .refusal(_, c):
                return c
            }
        }

        /// The context's explanation.
        public var errorDescription: String? { context.debugDescription }
        /// No suggestion.
        public var recoverySuggestion: String? { nil }
        /// The context's explanation.
        public var failureReason: String? { context.debugDescription }
    }
}

extension LanguageModelSession.GenerationError.Refusal {
    /// The prompt that asks for the explanation.
    static package let explanationRequest = "In one or two sentences, explain why you could not help with the previous request."

    /// `explanation`, from `model`.
    package func explanation(using model: some LanguageModel,
                     options: GenerationOptions = GenerationOptions()) async throws -> LanguageModelSession.Response<String> {
        try await explanationSession(model).respond(to: Self.explanationRequest, options: options)
    }

    package func explanationSession(_ model: some LanguageModel) -> LanguageModelSession {
        LanguageModelSession(model: model, transcript: Transcript(entries: transcriptEntries))
    }
}

/// Options that cannot be used (for example `maximumResponseTokens` of 0), thrown by
/// `LanguageModelSession` before any compute. Quanta's addition: FM27 has no case for it.
public struct InvalidGenerationOptionsError: Error, LocalizedError, CustomStringConvertible, Sendable {
    /// What is wrong.
    public let reason: String
    /// One sentence.
    public var errorDescription: String? { "Invalid generation options: \(reason)." }
    /// The reason.
    public var description: String { reason }

    package init(reason: String) {
        self.reason = reason
    }
}
