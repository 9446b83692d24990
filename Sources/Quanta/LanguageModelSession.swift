// The conversation object applications use (Apple's `LanguageModelSession`): it keeps the
// transcript and cumulative usage, sends each request to the model's executor, and turns the
// executor's events into responses and stream snapshots.
import Foundation
import Synchronization

/// A conversation with one model. Each `respond` renders the whole transcript plus the new
/// prompt; the executor reuses the KV cache for whatever part it has already seen.
///
/// One request runs at a time (a second one throws `Error.concurrentRequests`). A request that
/// fails or is cancelled leaves the transcript as it was and `isResponding` false.
public final class LanguageModelSession: Sendable {
    /// Errors of the session itself (the model's are `LanguageModelError`).
    public enum Error: Swift.Error, Sendable, Equatable {
        /// A request was made while another was still running.
        case concurrentRequests
        /// The transcript was changed while a request was running.
        case transcriptMutationWhileResponding
    }

    /// A rewrite of the transcript applied to each request before rendering (for example,
    /// dropping old turns to fit the context). It changes what is sent, not `transcript`; note
    /// that trimming the start of the history defeats KV prefix reuse.
    public typealias HistoryTransform = @Sendable (Transcript) -> Transcript

    private struct State {
        var transcript: Transcript
        var usage = Usage()
        var isResponding = false
    }

    private let state: Mutex<State>
    private let run: @Sendable (LanguageModelExecutorGenerationRequest, LanguageModelExecutorGenerationChannel) async throws -> Void
    private let warm: @Sendable (Transcript) -> Void
    private let historyTransform: HistoryTransform?

    /// A session with an optional system instruction.
    public convenience init<Model: LanguageModel>(model: Model, instructions: String? = nil,
                                                  historyTransform: HistoryTransform? = nil) {
        var transcript = Transcript()
        if let instructions {
            transcript.append(.instructions(.init(segments: [.text(.init(content: instructions))])))
        }
        self.init(model: model, transcript: transcript, historyTransform: historyTransform)
    }

    /// A session that continues `transcript`.
    public init<Model: LanguageModel>(model: Model, transcript: Transcript, historyTransform: HistoryTransform? = nil) {
        state = Mutex(State(transcript: transcript))
        self.historyTransform = historyTransform
        // One executor per session: it holds this conversation's KV cache.
        let executor = Result { () throws -> Model.Executor in try Model.Executor(configuration: model.executorConfiguration) }
        run = { request, channel in
            try await executor.get().respond(to: request, model: model, streamingInto: channel)
        }
        warm = { transcript in
            if case let .success(e) = executor { e.prewarm(model: model, transcript: transcript) }
        }
    }

    /// Instructions, prompts, reasoning and responses so far.
    public var transcript: Transcript { state.withLock { $0.transcript } }
    /// Tokens spent by every completed request, summed.
    public var usage: Usage { state.withLock { $0.usage } }
    /// Whether a request is running.
    public var isResponding: Bool { state.withLock { $0.isResponding } }

    /// Edits the transcript between requests (the next request renders the edited one).
    /// - Throws: `Error.transcriptMutationWhileResponding` while a request runs.
    public func updateTranscript(_ edit: (inout Transcript) -> Void) throws {
        try state.withLock { s throws(Error) in
            guard !s.isResponding else { throw .transcriptMutationWhileResponding }
            edit(&s.transcript)
        }
    }

    /// Starts computing the instructions (and `promptPrefix`, the expected start of the next
    /// prompt) into the KV cache now, so the next request reports them as cached. Returns at once.
    public func prewarm(promptPrefix: String? = nil) {
        var transcript = self.transcript
        if let promptPrefix { transcript.append(.prompt(.init(segments: [.text(.init(content: promptPrefix))]))) }
        warm(transcript)
    }

    /// Generates a response to `prompt` and appends the prompt, any reasoning and the response
    /// to the transcript.
    public func respond(to prompt: String, options: GenerationOptions = GenerationOptions(),
                        contextOptions: ContextOptions = ContextOptions()) async throws -> Response<String> {
        let base = try begin()
        return try await perform(prompt, options, contextOptions, base: base, onUpdate: { _ in })
    }

    /// As `respond`, yielding a snapshot (cumulative content and usage) as tokens arrive.
    /// Errors, including `Error.concurrentRequests`, are thrown by the iteration; abandoning the
    /// iteration cancels generation.
    public func streamResponse(to prompt: String, options: GenerationOptions = GenerationOptions(),
                               contextOptions: ContextOptions = ContextOptions()) -> ResponseStream<String> {
        let (stream, continuation) = AsyncThrowingStream<ResponseStream<String>.Snapshot, any Swift.Error>.makeStream()
        let base: Transcript
        do { base = try begin() } catch {
            continuation.finish(throwing: error)
            return ResponseStream(stream)
        }
        let task = Task {
            do {
                let response = try await self.perform(prompt, options, contextOptions, base: base) { continuation.yield($0) }
                continuation.yield(.init(content: response.content, transcriptEntries: response.transcriptEntries,
                                         usage: response.usage))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return ResponseStream(stream)
    }

    /// Marks the session busy and returns the transcript the request extends.
    private func begin() throws(Error) -> Transcript {
        try state.withLock { s throws(Error) in
            guard !s.isResponding else { throw .concurrentRequests }
            s.isResponding = true
            return s.transcript
        }
    }

    private func perform(_ text: String, _ options: GenerationOptions, _ contextOptions: ContextOptions, base: Transcript,
                         onUpdate: (ResponseStream<String>.Snapshot) -> Void) async throws -> Response<String> {
        do {
            let prompt = Transcript.Entry.prompt(.init(segments: [.text(.init(content: text))], options: options,
                                                       contextOptions: contextOptions))
            var sent = base
            sent.append(prompt)
            if let historyTransform { sent = historyTransform(sent) }
            let request = LanguageModelExecutorGenerationRequest(transcript: sent, generationOptions: options,
                                                                 contextOptions: contextOptions)
            let channel = LanguageModelExecutorGenerationChannel()
            var collected = ResponseCollector()
            let run = self.run
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    defer { channel.finish() }
                    try await run(request, channel)
                }
                for await event in channel {
                    collected.apply(event)
                    onUpdate(collected.snapshot)
                }
                try await group.waitForAll()
            }
            let entries = [prompt] + collected.entries
            let usage = collected.usage
            state.withLock { s in
                s.transcript.append(contentsOf: entries)
                s.usage = s.usage + usage
                s.isResponding = false
            }
            return Response(content: collected.content, transcriptEntries: entries[...], usage: usage)
        } catch {
            state.withLock { $0.isResponding = false }
            throw error
        }
    }
}

extension LanguageModelSession {
    /// The result of `respond`.
    public struct Response<Content: Sendable>: Sendable {
        /// The answer (reasoning excluded).
        public let content: Content
        /// The entries this request added: its prompt, any reasoning, the response.
        public let transcriptEntries: ArraySlice<Transcript.Entry>
        /// Tokens this request spent.
        public let usage: Usage
    }

    /// The snapshots of a streamed response.
    public struct ResponseStream<Content: Sendable>: AsyncSequence, Sendable {
        /// The response so far.
        public struct Snapshot: Sendable {
            /// Answer text so far (cumulative).
            public let content: Content
            /// The reasoning and response entries so far (the final snapshot: the entries added
            /// to the transcript, prompt included).
            public let transcriptEntries: ArraySlice<Transcript.Entry>
            /// Usage so far (cumulative).
            public let usage: Usage
        }

        /// The stream yields snapshots.
        public typealias Element = Snapshot
        private let stream: AsyncThrowingStream<Snapshot, any Swift.Error>

        init(_ stream: AsyncThrowingStream<Snapshot, any Swift.Error>) { self.stream = stream }

        /// Iterates the snapshots; ending the iteration early cancels generation.
        public func makeAsyncIterator() -> AsyncThrowingStream<Snapshot, any Swift.Error>.Iterator {
            stream.makeAsyncIterator()
        }

        /// Waits for the end and returns the whole response.
        public func collect() async throws -> Response<Content> {
            var last: Snapshot?
            for try await snapshot in self { last = snapshot }
            guard let last else { throw CancellationError() }
            return Response(content: last.content, transcriptEntries: last.transcriptEntries, usage: last.usage)
        }
    }
}
