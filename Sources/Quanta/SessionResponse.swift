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
    /// from the `streamResponse` call); ending the iteration early, or cancelling the consuming
    /// task, cancels the request at once, and the cancelled iteration throws `CancellationError`.
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
        private let finished: Finished

        init(_ stream: AsyncThrowingStream<Transfer<Snapshot>, any Swift.Error>, finished: Finished) {
            self.stream = stream
            self.finished = finished
        }

        /// A stream of one snapshot.
        init(single snapshot: Snapshot) {
            let (stream, continuation) = AsyncThrowingStream<Transfer<Snapshot>, any Swift.Error>.makeStream()
            continuation.yield(Transfer(snapshot))
            continuation.finish()
            let finished = Finished()
            finished.mark()
            self.init(stream, finished: finished)
        }

        /// Iterates the snapshots.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: stream.makeAsyncIterator(), finished: finished)
        }

        /// Iterates snapshots; throws `CancellationError` when the consuming task is cancelled
        /// before the response is complete.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<Transfer<Snapshot>, any Swift.Error>.Iterator
            let finished: Finished

            /// The next snapshot, or nil after the last.
            public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws -> Snapshot? {
                if let next = try await base.next(isolation: actor) { return next.value }
                // A cancelled consumer sees the stream end early: say so instead of ending quietly.
                if !finished.isMarked { throw CancellationError() }
                return nil
            }

            /// The next snapshot, or nil after the last.
            public mutating func next() async throws -> Snapshot? { try await next(isolation: nil) }
        }

        /// Waits for the end and returns the whole response.
        public func collect() async throws -> Response<Content> {
            var last: Snapshot?
            for try await snapshot in self { last = snapshot }
            guard let last, let final = finished.response as? Response<Content> else { throw CancellationError() }
            _ = last
            return final
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

/// Set once the producer has delivered the final snapshot (and the response, for `collect`).
final class Finished: @unchecked Sendable {
    private let lock = Mutex<Transfer<(Bool, Any?)>>(Transfer((false, nil)))
    var isMarked: Bool { lock.withLock { $0.value.0 } }
    var response: Any? { lock.withLock { $0.value.1 } }
    func mark(_ response: Any? = nil) { lock.withLock { $0 = Transfer((true, response)) } }
}
