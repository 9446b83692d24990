// The built-in profile modifiers: the model, option overrides, the history transform and the
// transcript error policy. A nil argument removes the override (the request's own value, or the
// default, applies).

extension LanguageModelSession.DynamicProfile {
    /// Runs requests on `model` instead of the session's.
    public func model(_ model: any LanguageModel) -> some LanguageModelSession.DynamicProfile {
        let choice = ModelChoice(model)
        return setting { profile, _ in profile.model = choice }
    }

    /// Runs requests on `model` instead of the session's.
    public func model(_ model: some LanguageModel) -> some LanguageModelSession.DynamicProfile {
        let choice = ModelChoice(model)
        return setting { profile, _ in profile.model = choice }
    }

    /// The temperature of requests that do not set one.
    public func temperature(_ temperature: Double?) -> some LanguageModelSession.DynamicProfile {
        setting { profile, _ in profile.temperature = temperature }
    }

    /// The sampling mode of requests that do not set one.
    public func samplingMode(_ samplingMode: GenerationOptions.SamplingMode?) -> some LanguageModelSession.DynamicProfile {
        setting { profile, _ in profile.samplingMode = samplingMode }
    }

    /// The response length limit of requests that do not set one.
    public func maximumResponseTokens(_ maximumResponseTokens: Int?) -> some LanguageModelSession.DynamicProfile {
        setting { profile, _ in profile.maximumResponseTokens = maximumResponseTokens }
    }

    /// The reasoning level of requests that do not set one.
    public func reasoningLevel(_ reasoningLevel: ContextOptions.ReasoningLevel?) -> some LanguageModelSession.DynamicProfile {
        setting { profile, _ in profile.reasoningLevel = reasoningLevel }
    }

    /// The tool-calling mode of requests that do not set one.
    public func toolCallingMode(_ toolCallingMode: GenerationOptions.ToolCallingMode?) -> some LanguageModelSession.DynamicProfile {
        setting { profile, _ in profile.toolCallingMode = toolCallingMode }
    }

    /// Rewrites the history (the transcript before the new prompt, without instructions) that each
    /// request sends; the session's transcript keeps everything. Nested transforms all apply,
    /// innermost first.
    public func historyTransform(_ transform: @escaping ([Transcript.Entry]) -> [Transcript.Entry]) -> some LanguageModelSession.DynamicProfile {
        setting { profile, _ in profile.historyTransforms.insert(transform, at: 0) }
    }

    /// What a failed request leaves in the transcript, instead of the session's policy.
    public func transcriptErrorHandlingPolicy(_ transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy?) -> some LanguageModelSession.DynamicProfile {
        setting { profile, _ in profile.transcriptErrorHandlingPolicy = transcriptErrorHandlingPolicy }
    }
}
