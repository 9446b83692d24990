// One `respond` / `streamResponse` call: checks, the tool loop, and the transcript update.
import Foundation

extension LanguageModelSession {
    /// The most rounds (generations) one request may take in a tool loop; the last allowed round
    /// offers no tools, so the model has to answer.
    static let maximumToolRounds = 8

    /// Everything `perform` needs about one request.
    struct RequestParameters<Content: Generable> {
        let prompt: Prompt
        let shape: OutputShape<Content>
        var options: GenerationOptions
        var contextOptions: ContextOptions
        let metadata: MetadataValues
    }

    /// Checks the request (with `profile` applied) before any compute, so another executor
    /// plugged into the session is gated too: options, then the model, then its capabilities.
    func validate<Content>(_ p: RequestParameters<Content>, _ profile: ResolvedProfile) throws {
        try p.options.validate()
        guard let capabilities = (profile.model ?? model)?.capabilities else { throw NoModelError() }
        try capabilities.validate(reasoningLevel: p.contextOptions.reasoningLevel, hasSchema: p.shape.schema != nil,
                                  offersTools: !profile.tools.isEmpty, toolCallingMode: p.options.toolCallingMode)
    }

    /// Marks the session busy; returns the transcript the request extends and its tokens.
    func begin() throws(Error) -> (base: Transcript, request: Int, edits: Int) {
        let started = registrar.withMutation(of: self, keyPath: \.isResponding) {
            state.withLock { s -> (Transcript, Int, Int)? in
                guard !s.isResponding else { return nil }
                s.isResponding = true
                s.requests += 1
                return (s.transcript, s.requests, s.edits)
            }
        }
        guard let started else { throw .concurrentRequests }
        return started
    }

    /// Runs the request to the end: generation rounds until the model answers instead of calling
    /// tools. `onSnapshot` sees every intermediate state. Appends to the transcript on success.
    /// `profile` (validated with the request) gives the model, instructions, tools and callbacks.
    func perform<Content>(_ p: RequestParameters<Content>, _ profile: ResolvedProfile, base: Transcript, request: Int, edits: Int,
                          onSnapshot: (ResponseStream<Content>.Snapshot) -> Void) async throws -> Response<Content> {
        let prompt = Transcript.Prompt(
            metadata: p.metadata, segments: [.text(p.prompt.text)], options: p.options,
            responseFormat: p.shape.schema.map(Transcript.ResponseFormat.init(schema:)), contextOptions: p.contextOptions)
        let promptEntry = Transcript.Entry.prompt(prompt)
        // `validate` has checked that there is a model.
        let runner = executors.runner(for: (profile.model ?? model)!)
        let tools = profile.tools
        var produced: [Transcript.Entry] = []
        var usage = Usage.zero
        var collector = ResponseCollector()
        do {
            for action in self.profile?.transition(to: profile) ?? [] { await action() }
            for action in profile.onPrompt { try await action(prompt) }
            for round in 0..<Self.maximumToolRounds {
                var options = p.options
                // `.required` forces the first generation to be a call; afterwards the model may answer.
                if round > 0 && options.toolCallingMode?.kind == .required { options.toolCallingMode = .allowed }
                if round == Self.maximumToolRounds - 1 { options.toolCallingMode = .disallowed }
                let offered = tools.isEmpty || options.toolCallingMode?.kind == .disallowed
                    ? [] : tools.map { Transcript.ToolDefinition(tool: $0) }
                var sent = profile.opening(base)
                sent.append(promptEntry)
                sent.append(contentsOf: produced)
                if let historyTransform { sent = historyTransform(sent) }
                let executorRequest = LanguageModelExecutorGenerationRequest(
                    id: UUID(), transcript: sent, enabledTools: offered, schema: p.shape.schema, generationOptions: options,
                    contextOptions: p.contextOptions, metadata: p.metadata)
                collector = ResponseCollector()
                try await run(executorRequest, on: runner) { event in
                    collector.apply(event)
                    // One snapshot per generated token, so each shows more usage than the last;
                    // usage reports and held-back text arrive with the next token or the final one.
                    guard event.tokenCount > 0,
                          let snapshot = Self.snapshot(collector, p.shape, before: produced, usage: usage) else { return }
                    onSnapshot(snapshot)
                }
                usage = usage + collector.usage
                if let reasoning = collector.reasoningEntry {
                    produced.append(reasoning)
                    if case let .reasoning(entry) = reasoning { for action in profile.onReasoning { try await action(entry) } }
                }
                guard let calls = collector.toolCallsEntry(), case let .toolCalls(list) = calls else { break }
                produced.append(calls)
                for call in list {
                    for action in profile.onToolCall { try await action(call) }
                    let output = try await output(of: call, tools: tools)
                    produced.append(.toolOutput(output))
                    for action in profile.onToolOutput { try await action(call, output) }
                }
                collector = ResponseCollector()
            }
            let (content, raw) = try p.shape.complete(collector.content)
            let segment: Transcript.Segment = p.shape.schema.map { .structure(.init(source: $0.name, content: raw)) }
                ?? .text(collector.content)
            let response = Transcript.Response(id: collector.responseEntryID, segments: [segment])
            produced.append(.response(response))
            for action in profile.onResponse { try await action(response) }
            let entries = [promptEntry] + produced
            try finish(request: request, edits: edits, entries: entries, usage: usage)
            return Response(content: content, rawContent: raw, transcriptEntries: entries[...], usage: usage)
        } catch {
            abandon(request: request, keeping: [promptEntry] + produced + [collector.reasoningEntry].compactMap { $0 },
                    policy: profile.transcriptErrorHandlingPolicy)
            throw error
        }
    }

    /// Runs one executor request, feeding its events to `onEvent` as they arrive.
    private func run(_ request: LanguageModelExecutorGenerationRequest, on runner: ModelRunner,
                     onEvent: (LanguageModelExecutorGenerationChannel.Event) -> Void) async throws {
        let channel = LanguageModelExecutorGenerationChannel()
        let execute = runner.execute
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [runs] in
                defer { channel.finish() }
                try await runs.run { try await execute(request, channel) }
            }
            for await event in channel { onEvent(event) }
            try await group.waitForAll()
        }
    }

    /// Calls the tool `call` names and returns its output entry.
    private func output(of call: Transcript.ToolCall, tools: [any Tool]) async throws -> Transcript.ToolOutput {
        guard let tool = tools.first(where: { $0.name == call.toolName }) else {
            // Executors only report calls of offered tools; a foreign executor may not.
            return .init(id: call.id, toolName: call.toolName, segments: [.text("error: there is no tool named \(call.toolName)")])
        }
        do {
            let text = try await tool.invoke(with: call.arguments)
            return .init(id: call.id, toolName: call.toolName, segments: [.text(text)])
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw ToolCallError(tool: tool, underlyingError: error)
        }
    }

    /// The snapshot after an event, or nil when the content cannot be read yet.
    private static func snapshot<Content>(_ collector: ResponseCollector, _ shape: OutputShape<Content>,
                                          before: [Transcript.Entry], usage: Usage) -> ResponseStream<Content>.Snapshot? {
        guard let (content, raw) = shape.partial(collector.content) else { return nil }
        var entries = before
        if let reasoning = collector.reasoningEntry { entries.append(reasoning) }
        if let calls = collector.toolCallsEntry() { entries.append(calls) }
        let segment: Transcript.Segment = shape.schema.map { .structure(.init(source: $0.name, content: raw)) } ?? .text(collector.content)
        entries.append(.response(.init(id: collector.responseEntryID, segments: [segment])))
        return .init(content: content, rawContent: raw, transcriptEntries: entries[...], usage: usage + collector.usage)
    }

    /// Records a successful request, unless the transcript was edited under it.
    private func finish(request: Int, edits: Int, entries: [Transcript.Entry], usage: Usage) throws {
        let outcome: Error? = registrar.withMutation(of: self, keyPath: \.transcript) {
            registrar.withMutation(of: self, keyPath: \.usage) {
                registrar.withMutation(of: self, keyPath: \.isResponding) {
                    state.withLock { s -> Error? in
                        guard s.requests == request else { return nil }   // abandoned: a newer request owns the session
                        s.isResponding = false
                        guard s.edits == edits else { return .transcriptMutationWhileResponding }
                        s.transcript.append(contentsOf: entries)
                        s.usage = s.usage + usage
                        return nil
                    }
                }
            }
        }
        if let outcome { throw outcome }
    }

    /// Ends a failed request: frees the session and, under `.preserveTranscript` (`policy`, else
    /// the session's), keeps `entries`.
    func abandon(request: Int, keeping entries: [Transcript.Entry], policy: TranscriptErrorHandlingPolicy?) {
        registrar.withMutation(of: self, keyPath: \.transcript) {
            registrar.withMutation(of: self, keyPath: \.isResponding) {
                state.withLock { s in
                    guard s.requests == request else { return }
                    s.isResponding = false
                    if (policy ?? s.policy)?.keepsPartialEntries == true { s.transcript.append(contentsOf: entries) }
                }
            }
        }
    }
}
