// One chat on a slot, for every endpoint that answers a chat (OpenAI's `/v1/chat/completions`,
// Ollama's `/api/chat` and `/api/generate`): admission, the window check, the stream, the slot,
// the run and its metrics are the same; only the wire format differs.
import LocalModels

/// A chat answer streamed in one wire format (OpenAI's server-sent events, Ollama's NDJSON).
protocol ChatStreamWriter: ChatAnswerSink {
    var body: EventStreamBody { get }
    /// Ends the stream with the finished answer; `seconds` is the run's wall time.
    func finish(_ answer: ChatAnswer, seconds: Double)
    /// Ends the stream with an error that came after it began.
    func fail(_ error: APIError)
    /// Ends the stream without an answer (the request was cancelled).
    func end()
}

extension OpenAIServer {
    /// Admits `chat` (or answers 503), refuses a prompt the window cannot hold before any stream
    /// starts, opens the stream with `openStream` when the request streams, waits for a slot, runs
    /// the chat and records its tokens. `whole` is the answer of a request that does not stream
    /// (with the run's seconds), `reply` the endpoint's form of an error sent before any stream.
    func runChat<Writer: ChatStreamWriter>(
        _ chat: ChatRequest, _ request: HTTPRequest, _ answer: @escaping @Sendable (HTTPReply) -> Void,
        reply: @escaping @Sendable (APIError) -> HTTPReply,
        openStream: @escaping @Sendable () -> Writer,
        whole: @escaping @Sendable (ChatAnswer, Double) -> HTTPReply
    ) {
        admitted(request, answer) { [self] in
            var slot: SlotPool.Slot?
            defer { if let slot { pool.release(slot) } else { pool.withdraw() } }
            // A prompt that cannot fit is a 400 before any stream starts.
            let prompt = (try? model.promptTokens(for: chat.transcript)) ?? []
            if prompt.count >= model.contextSize {
                return answer(reply(APIError(status: 400, "the prompt is \(prompt.count) tokens; the context window is \(model.contextSize)",
                                             param: "messages", code: "context_length_exceeded")))
            }
            let writer = chat.stream ? openStream() : nil
            if let writer { answer(.stream(writer.body)) }
            // The slot whose cache this prompt gains the most from: the tokens it holds of the
            // prompt, less those the request would drop (the rest of what it holds). A
            // conversation's next turn goes where its earlier turns are, a new one to an empty or
            // the least recently used slot rather than over another conversation for the sake of
            // a chat template's opening.
            slot = await pool.acquire { slot in
                let (held, cached) = slot.executor.cachedPrefix(of: prompt)
                return held - (cached - held)
            }
            guard let slot, !Task.isCancelled else {
                metrics.cancelled()
                writer?.end()
                return
            }
            let started = ContinuousClock.now
            do {
                let result = try await ChatRun.run(chat, model: model, executor: slot.executor, sink: writer)
                slot.cachedTokens.store(result.promptTokens + result.completionTokens, ordering: .relaxed)
                let seconds = started.secondsUntilNow
                metrics.generation(prompt: result.promptTokens, completion: result.completionTokens, seconds: seconds)
                if result.finishReason == "cancelled" {
                    metrics.cancelled()
                    writer?.end()
                } else if let writer {
                    writer.finish(result, seconds: seconds)
                } else {
                    answer(whole(result, seconds))
                }
            } catch {
                if error is CancellationError { writer?.end(); return }
                let failure = Self.apiError(error)
                if let writer { writer.fail(failure) } else { answer(reply(failure)) }
            }
        }
    }
}
