// The callback modifiers: actions run as a request adds entries to the transcript, and when a
// profile starts or stops being the one in force. A throwing action fails the request.

extension LanguageModelSession.DynamicProfile {
    /// Runs `action` before each request is sent.
    public func onPrompt(@_inheritActorContext perform action: nonisolated(nonsending) sending @escaping () async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        onPrompt { _ in try await action() }
    }

    /// Runs `action` with each request's prompt before the request is sent.
    public func onPrompt(@_inheritActorContext perform action: nonisolated(nonsending) sending @escaping (Transcript.Prompt) async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        setting { profile, _ in profile.onPrompt.append(action) }
    }

    /// Runs `action` when a response is added.
    public func onResponse(@_inheritActorContext perform action: nonisolated(nonsending) sending @escaping () async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        onResponse { _ in try await action() }
    }

    /// Runs `action` with each response when it is added.
    public func onResponse(@_inheritActorContext perform action: nonisolated(nonsending) sending @escaping (Transcript.Response) async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        setting { profile, _ in profile.onResponse.append(action) }
    }

    /// Runs `action` when reasoning is added.
    public func onReasoning(@_inheritActorContext perform action: nonisolated(nonsending) sending @escaping () async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        onReasoning { _ in try await action() }
    }

    /// Runs `action` with the model's reasoning when it is added.
    public func onReasoning(@_inheritActorContext perform action: nonisolated(nonsending) sending @escaping (Transcript.Reasoning) async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        setting { profile, _ in profile.onReasoning.append(action) }
    }

    /// Runs `action` when the model calls a tool.
    public func onToolCall(@_inheritActorContext perform action: nonisolated(nonsending) sending @escaping () async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        onToolCall { _ in try await action() }
    }

    /// Runs `action` with each tool call, before the tool runs.
    public func onToolCall(@_inheritActorContext perform action: nonisolated(nonsending) sending @escaping (Transcript.ToolCall) async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        setting { profile, _ in profile.onToolCall.append(action) }
    }

    /// Runs `action` when a tool's output is added.
    public func onToolOutput(@_inheritActorContext perform action: nonisolated(nonsending) sending @escaping () async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        onToolOutput { _, _ in try await action() }
    }

    /// Runs `action` with each tool call and its output when the output is added.
    public func onToolOutput(@_inheritActorContext perform action: nonisolated(nonsending) sending @escaping (Transcript.ToolCall, Transcript.ToolOutput) async throws -> Void) -> some LanguageModelSession.DynamicProfile {
        setting { profile, _ in profile.onToolOutput.append(action) }
    }

    /// Runs `action` when this profile becomes the one in force: at the session's first request,
    /// or when a condition in an enclosing profile switches to it. Awaited before the request.
    public func onActivate(@_inheritActorContext perform action: sending @escaping @isolated(any) () async -> Void) -> some LanguageModelSession.DynamicProfile {
        setting { profile, path in profile.lifecycle[path, default: .init()].activate.append(action) }
    }

    /// Runs `action` when this profile stops being the one in force (a condition in an enclosing
    /// profile switched away from it). Awaited before the request that switched.
    public func onDeactivate(@_inheritActorContext perform action: sending @escaping @isolated(any) () async -> Void) -> some LanguageModelSession.DynamicProfile {
        setting { profile, path in profile.lifecycle[path, default: .init()].deactivate.append(action) }
    }
}
