// The FM27 spellings that default to the system model: `LanguageModelSession()`,
// `LanguageModelSession(instructions:)`, sessions on dynamic instructions, and a refusal's
// explanation. They live beside `SystemLanguageModel`, which needs the local backend.
import LanguageModelAPI

extension LanguageModelSession {
    // The FM26 set, on the system model unless another `SystemLanguageModel` is given (so
    // `LanguageModelSession()` and `LanguageModelSession(instructions:)` compile). Each calls the
    // designated initialiser: `self.init(model: model, ...)` would pick itself again.

    /// A session on the system model with instructions given as text.
    @_disfavoredOverload
    public convenience init(model: SystemLanguageModel = .default, tools: [any Tool] = [], instructions: String? = nil) {
        self.init(model: ModelChoice(model), tools: tools, transcript: Self.opening(instructions, tools), historyTransform: nil, profile: nil)
    }

    /// A session on the system model with instructions written with `@InstructionsBuilder`.
    public convenience init(model: SystemLanguageModel = .default, tools: [any Tool] = [],
                            @InstructionsBuilder instructions: () throws -> Instructions) rethrows {
        self.init(model: ModelChoice(model), tools: tools, transcript: Self.opening(try instructions().text, tools),
                  historyTransform: nil, profile: nil)
    }

    /// A session on the system model with instructions (a system message) and tools.
    public convenience init(model: SystemLanguageModel = .default, tools: [any Tool] = [], instructions: Instructions? = nil) {
        self.init(model: ModelChoice(model), tools: tools, transcript: Self.opening(instructions?.text, tools),
                  historyTransform: nil, profile: nil)
    }

    /// A session on the system model that continues `transcript`.
    public convenience init(model: SystemLanguageModel = .default, tools: [any Tool] = [], transcript: Transcript) {
        self.init(model: ModelChoice(model), tools: tools, transcript: transcript, historyTransform: nil, profile: nil)
    }

    /// A session on `model` (the system model by default) whose instructions and tools come
    /// from `dynamicInstructions`, re-evaluated at the start of every request.
    public convenience init(model: some LanguageModel = SystemLanguageModel.default, dynamicInstructions: sending some DynamicInstructions,
                            history: some Collection<Transcript.Entry> = []) {
        let profile = Profile { AnyDynamicInstructions(dynamicInstructions) }
        self.init(model: ModelChoice(model), tools: [], transcript: Transcript(entries: history), historyTransform: nil,
                  profile: ProfileResolver(profile))
    }
}

extension LanguageModelSession.GenerationError.Refusal {
    /// The system model's explanation of the refusal: it is asked, after the refused
    /// entries, why it could not help.
    /// - Throws: `SystemLanguageModel.Error.assetsUnavailable` without a model file, or the
    ///   request's error.
    public var explanation: LanguageModelSession.Response<String> {
        get async throws { try await explanation(using: SystemLanguageModel.default) }
    }

    /// `explanation` as a stream of snapshots.
    public var explanationStream: LanguageModelSession.ResponseStream<String> {
        explanationSession(SystemLanguageModel.default).streamResponse(to: Self.explanationRequest)
    }
}
