// What `respond` returns and `streamResponse` yields.
import Foundation
import Synchronization

extension LanguageModelSession {
    /// The result of `respond`.
    public struct Response<Content: Generable> {
        /// The answer (reasoning excluded), as the requested type.
        public let content: Content
        /// The answer as generated content (for text, a string).
        public let rawContent: GeneratedContent
        /// The entries this request added: its prompt, any reasoning, tool calls and outputs,
        /// the response.
        public let transcriptEntries: ArraySlice<Transcript.Entry>
        /// Tokens this request spent (every round of a tool loop, summed).
        public let usage: Usage
    }

    /// The snapshots of a streamed response. Iterating it starts nothing new (the request runs
    /// from the `streamResponse` call). When the last consumer leaves before the end (the loop
    /// is left early, so its iterator is gone, or the consuming task is cancelled) the request
    /// is cancelled at once and the session is free; a cancelled iteration throws
    /// `CancellationError`. `collect()` waiting for the response counts as a consumer.
    public struct ResponseStream<Content: Generable>: AsyncSequence {
        /// The response so far.
        public struct Snapshot {
            /// The answer so far, as the type's partial form.
            public var content: Content.PartiallyGenerated
            /// The answer so far as generated content (incomplete until the end).
            public var rawContent: GeneratedContent
            /// The reasoning, tool and response entries so far (the final snapshot: every entry
            /// the request added, prompt included).
            public var transcriptEntries: ArraySlice<Transcript.Entry>
            /// Usage so far (grows with every token).
            public var usage: Usage
        }

        /// The stream yields snapshots.
        public typealias Element = Snapshot
        private let stream: AsyncThrowingStream<Transfer<Snapshot>, any Swift.Error>
        private let control: StreamControl

        init(_ stream: AsyncThrowingStream<Transfer<Snapshot>, any Swift.Error>, control: StreamControl) {
            self.stream = stream
            self.control = control
        }

        /// A stream of one snapshot, whose `collect()` returns `response`.
        init(single snapshot: Snapshot, response: Response<Content>) {
            let (stream, continuation) = AsyncThrowingStream<Transfer<Snapshot>, any Swift.Error>.makeStream()
            continuation.yield(Transfer(snapshot))
            continuation.finish()
            let control = StreamControl()
            control.finish(.success(response))
            self.init(stream, control: control)
        }

        /// Iterates the snapshots.
        public func makeAsyncIterator() -> AsyncIterator {
            let consumer = StreamConsumer(control)
            return AsyncIterator(base: stream.makeAsyncIterator(), consumer: consumer, readsSnapshots: control.addIterator())
        }

        /// Iterates snapshots; throws the request's error, or `CancellationError` when the
        /// consuming task is cancelled before the response is complete.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<Transfer<Snapshot>, any Swift.Error>.Iterator
            /// Keeps the request alive while this iterator (or a copy) exists.
            let consumer: StreamConsumer
            /// False when `collect()` already consumed the snapshots: this iterator only waits for the end.
            let readsSnapshots: Bool
            var ended = false

            /// The next snapshot, or nil after the last.
            public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws -> Snapshot? {
                guard !ended else { return nil }
                do {
                    if readsSnapshots, let next = try await base.next(isolation: actor) { return next.value }
                } catch {
                    ended = true
                    throw error
                }
                ended = true
                let control = consumer.control
                let outcome = readsSnapshots ? control.outcome : await control.waitForOutcome()
                switch outcome {
                case .success?: return nil
                case let .failure(error)?: throw error
                // A cancelled consumer sees the stream end early: say so instead of ending quietly.
                case nil: throw CancellationError()
                }
            }

            /// The next snapshot, or nil after the last.
            public mutating func next() async throws -> Snapshot? { try await next(isolation: nil) }
        }

        /// Waits for the end and returns the whole response: at once when the request has
        /// already finished (the stream was iterated), else after the rest of the generation.
        /// Throws the request's error, or `CancellationError` if it was cancelled. Runs on the
        /// caller's actor (as FM27 declares it), so a stream made and iterated on the main actor
        /// can be collected there too.
        nonisolated(nonsending) public func collect() async throws -> sending Response<Content> {
            let consumer = StreamConsumer(control)
            if control.startCollecting() {
                // No iterator reads the snapshots: read them here, so they are not all kept until
                // the end. The request's error, if any, is its outcome, thrown below.
                var iterator = stream.makeAsyncIterator()
                while (try? await iterator.next()) != nil {}
            }
            let outcome = await control.waitForOutcome()
            withExtendedLifetime(consumer) {}
            switch outcome {
            case let .success(response): return response as! Response<Content>
            case let .failure(error): throw error
            }
        }
    }
}

extension LanguageModelSession.Response: Sendable where Content: Sendable {}

/// Carries a value across tasks. The session hands each snapshot to exactly one consumer and
/// never touches it again, so no state is shared.
struct Transfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// What a response stream and its consumers share: the request's outcome (for `collect` and
/// the end of iteration), the consumers attached, and how to cancel the request.
final class StreamControl: @unchecked Sendable {
    private struct State {
        var outcome: Result<Any, any Error>?
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Live iterators and waiting `collect` calls.
        var consumers = 0
        /// Iterators made so far.
        var iterators = 0
        /// Whether a `collect` reads the snapshots (then no iterator may).
        var collecting = false
        var cancel: (@Sendable () -> Void)?
    }

    private let state = Mutex(Transfer(State()))

    private func withState<R>(_ body: (inout State) -> R) -> R {
        state.withLock { box in
            var s = box.value
            defer { box = Transfer(s) }
            return body(&s)
        }
    }

    /// The request's outcome (the response, boxed), once it has ended.
    var outcome: Result<Any, any Error>? { withState { $0.outcome } }

    /// Records how the request ended (the first report wins) and wakes whoever waits for it.
    func finish(_ outcome: Result<Any, any Error>) {
        let waiters = withState { s -> [CheckedContinuation<Void, Never>] in
            guard s.outcome == nil else { return [] }
            s.outcome = outcome
            s.cancel = nil
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// How to cancel the running request (ignored once it has ended).
    func onCancel(_ cancel: @escaping @Sendable () -> Void) {
        withState { s in if s.outcome == nil { s.cancel = cancel } }
    }

    /// Cancels the request unless it has ended; its outcome is then `CancellationError`.
    func cancel() {
        let cancel = withState { s -> (@Sendable () -> Void)? in
            defer { s.cancel = nil }
            return s.outcome == nil ? s.cancel : nil
        }
        cancel?()
        finish(.failure(CancellationError()))
    }

    func attach() { withState { $0.consumers += 1 } }

    /// A consumer left: the last one to leave before the end cancels the request.
    func detach() {
        let abandoned = withState { s -> Bool in
            s.consumers -= 1
            return s.consumers == 0 && s.outcome == nil
        }
        if abandoned { cancel() }
    }

    /// Counts a new iterator; returns whether it reads the snapshots (false once `collect` does).
    func addIterator() -> Bool {
        withState { s in
            s.iterators += 1
            return !s.collecting
        }
    }

    /// Whether the calling `collect` should read the snapshots: only while no iterator has been
    /// made and no other `collect` reads them, so two readers never wait on the stream at once.
    func startCollecting() -> Bool {
        withState { s in
            guard s.iterators == 0 && !s.collecting else { return false }
            s.collecting = true
            return true
        }
    }

    /// The outcome, after waiting for the request to end; cancelling the waiting task cancels
    /// the request.
    func waitForOutcome() async -> Result<Any, any Error> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let ended = withState { s -> Bool in
                    if s.outcome != nil { return true }
                    s.waiters.append(waiter)
                    return false
                }
                if ended { waiter.resume() }
            }
        } onCancel: {
            cancel()
        }
        return outcome!
    }
}

/// One consumer of a response stream (an iterator and its copies, or a waiting `collect`),
/// attached for as long as it exists.
final class StreamConsumer: Sendable {
    let control: StreamControl
    init(_ control: StreamControl) {
        self.control = control
        control.attach()
    }
    deinit { control.detach() }
}
