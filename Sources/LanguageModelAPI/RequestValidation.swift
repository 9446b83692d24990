// The rules a request must meet before any compute, written once: the session applies them to
// every request (so any executor plugged into it is gated), and the local executor applies them
// again because it is public and may be driven without a session.

extension GenerationOptions {
    /// Throws `InvalidGenerationOptionsError` for options no request may have (a
    /// `maximumResponseTokens` below 1, a negative or non-finite temperature, `random(top: 0)`).
    package func validate() throws {
        if let reason = invalidReason { throw InvalidGenerationOptionsError(reason: reason) }
    }
}

extension LanguageModelCapabilities {
    /// Throws `LanguageModelError.unsupportedCapability` for the first thing a request asks that
    /// these capabilities lack: a reasoning level, a schema, or tools the model may call.
    package func validate(reasoningLevel: ContextOptions.ReasoningLevel?, hasSchema: Bool, offersTools: Bool,
                          toolCallingMode: GenerationOptions.ToolCallingMode?) throws {
        func need(_ capability: Capability, _ why: String) throws {
            guard !contains(capability) else { return }
            throw LanguageModelError.unsupportedCapability(.init(capability: capability, debugDescription: why))
        }
        if reasoningLevel != nil {
            try need(.reasoning, "the model does not support reasoning, so it cannot take a reasoning level")
        }
        if hasSchema { try need(.guidedGeneration, "the model does not support guided generation") }
        if offersTools && toolCallingMode?.kind != .disallowed {
            try need(.toolCalling, "the model does not support tool calling")
        }
    }

    /// Both checks, for an executor's request.
    package func validate(_ request: LanguageModelExecutorGenerationRequest) throws {
        try request.generationOptions.validate()
        try validate(reasoningLevel: request.contextOptions.reasoningLevel, hasSchema: request.schema != nil,
                     offersTools: !request.enabledToolDefinitions.isEmpty, toolCallingMode: request.generationOptions.toolCallingMode)
    }
}
