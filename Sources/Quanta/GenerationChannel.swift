// The executor -> session stream. Apple's channel has opaque builder events; ours are plain
// `Equatable` enums with the same spellings (`.response(action: .appendText(_:tokenCount:))`), so
// tests and other consumers can read them.

/// An async sequence of generation events: an executor `send`s, the session iterates. Events are
/// buffered, so `send` never waits for the reader.
public final class LanguageModelExecutorGenerationChannel: AsyncSequence, Sendable {
    /// The channel yields events.
    public typealias Element = Event

    private let stream: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation

    /// An open channel.
    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: Event.self)
    }

    /// Delivers one event to the reader.
    public func send(_ event: Event) async {
        continuation.yield(event)
    }

    /// Ends the sequence (the session calls this when the executor returns or throws).
    func finish() { continuation.finish() }

    /// Iterates the events in the order they were sent (one reader).
    public func makeAsyncIterator() -> AsyncStream<Event>.Iterator { stream.makeAsyncIterator() }

    /// One thing the executor produced.
    public enum Event: Sendable, Equatable {
        /// A change to the response entry `entryID`.
        case response(entryID: String? = nil, action: ResponseAction)
        /// A change to the reasoning entry `entryID`.
        case reasoning(entryID: String? = nil, action: ReasoningAction)
    }

    /// Changes to a response.
    public enum ResponseAction: Sendable, Equatable {
        /// Text produced by `tokenCount` tokens (the text may be empty: a token that completes
        /// no character yet, or an end-of-generation token; `tokenCount` may be 0 for text held
        /// back until the end).
        case appendText(String, segmentID: String? = nil, tokenCount: Int)
        /// The request's usage so far; each update replaces the previous one.
        case updateUsage(input: Usage.Input, output: Usage.Output)
    }

    /// Changes to a reasoning block.
    public enum ReasoningAction: Sendable, Equatable {
        /// Thinking text produced by `tokenCount` tokens (the think markers arrive as empty text
        /// with a count of 1).
        case appendText(String, segmentID: String? = nil, tokenCount: Int)
    }
}
