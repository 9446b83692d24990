// The two entry points every `respond` / `streamResponse` overload funnels into.

extension LanguageModelSession {
    /// Checks, marks the session busy and runs the request to the end.
    func respondCore<Content>(_ p: RequestParameters<Content>) async throws -> Response<Content> {
        let (p, profile) = applyingProfile(p)
        try validate(p, profile)
        let (base, request, edits) = try begin()
        return try await perform(p, profile, base: base, request: request, edits: edits, onSnapshot: { _ in })
    }

    /// Checks and starts the request now; its snapshots arrive through the returned stream, whose
    /// iteration throws the request's errors. When the stream's last consumer leaves early (its
    /// loop ends, or its task is cancelled) or the stream is dropped, the request is cancelled
    /// and the session freed at once (the executor's winding-down is awaited by the next
    /// request, not by the caller).
    func streamCore<Content>(_ p: RequestParameters<Content>) -> ResponseStream<Content> {
        typealias Snapshot = ResponseStream<Content>.Snapshot
        let (stream, continuation) = AsyncThrowingStream<Transfer<Snapshot>, any Swift.Error>.makeStream()
        let control = StreamControl()
        let started: (base: Transcript, request: Int, edits: Int)
        let (p, profile) = applyingProfile(p)
        do {
            try validate(p, profile)
            started = try begin()
        } catch {
            control.finish(.failure(error))
            continuation.finish(throwing: error)
            return ResponseStream(stream, control: control)
        }
        let job = Transfer((p, profile))
        let task = Task {
            do {
                let (p, profile) = job.value
                let response = try await self.perform(p, profile, base: started.base, request: started.request, edits: started.edits) {
                    continuation.yield(Transfer($0))
                }
                if let last = p.shape.partial(response.rawContent.jsonStringOrText(p.shape.schema == nil)) {
                    continuation.yield(Transfer(Snapshot(content: last.0, rawContent: response.rawContent,
                                                         transcriptEntries: response.transcriptEntries, usage: response.usage)))
                }
                control.finish(.success(response))
                continuation.finish()
            } catch {
                control.finish(.failure(error))
                continuation.finish(throwing: error)
            }
        }
        control.onCancel { [weak self] in
            task.cancel()
            self?.setResponding(false, ifRequest: started.request)
        }
        continuation.onTermination = { termination in
            guard case .cancelled = termination else { return }
            control.cancel()
        }
        return ResponseStream(stream, control: control)
    }

    /// The request's profile, and the request with the profile's option overrides applied.
    private func applyingProfile<Content>(_ p: RequestParameters<Content>) -> (RequestParameters<Content>, ResolvedProfile) {
        let profile = resolveProfile()
        var p = p
        p.options = profile.apply(to: p.options)
        p.contextOptions = profile.apply(to: p.contextOptions)
        return (p, profile)
    }

    /// `contextOptions` with the FM26 `includeSchemaInPrompt:` argument applied.
    func withSchemaFlag(_ contextOptions: ContextOptions, _ includeSchemaInPrompt: Bool) -> ContextOptions {
        var options = contextOptions
        options.includeSchemaInPrompt = includeSchemaInPrompt
        return options
    }
}

extension GeneratedContent {
    /// The text a response's raw content was generated as: the string itself for free text, the
    /// JSON for structured content.
    func jsonStringOrText(_ isText: Bool) -> String {
        if isText, let text = try? value(String.self) { return text }
        return jsonString
    }
}
