// The executor -> session stream. Apple's channel has opaque builder events; ours are plain
// enums with the same spellings (`.response(action: .appendText(_:tokenCount:))`), so tests and
// other consumers can read them. Equality ignores nothing: metadata compares by value.
import Foundation

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

    /// Ends the sequence: the session calls this when the executor returns or throws, and so does
    /// the package's server, which drives an executor itself. Package access: Apple's channel has
    /// no `finish()`, so it is not part of the public surface.
    package func finish() { continuation.finish() }

    /// Iterates the events in the order they were sent (one reader).
    public func makeAsyncIterator() -> AsyncStream<Event>.Iterator { stream.makeAsyncIterator() }

    /// Token counts an executor reports. Apple declares separate channel and session count
    /// types with the same fields; here they are one type under both names.
    public struct Usage: Sendable, Equatable {
        /// Prompt tokens (the session's type).
        public typealias Input = LanguageModelSession.Usage.Input
        /// Generated tokens (the session's type).
        public typealias Output = LanguageModelSession.Usage.Output
        /// Prompt tokens.
        public var input: Input
        /// Generated tokens.
        public var output: Output
        /// Provider-specific values.
        public var metadata: MetadataValues
        /// A usage report.
        public init(input: Input, output: Output, metadata: MetadataValues = [:]) {
            self.input = input
            self.output = output
            self.metadata = metadata
        }
        /// Equal counts and metadata.
        public static func == (a: Usage, b: Usage) -> Bool {
            a.input == b.input && a.output == b.output && metadataEqual(a.metadata, b.metadata)
        }
    }

    /// One thing the executor produced.
    public enum Event: Sendable, Equatable {
        /// A change to the response entry `entryID`.
        case response(entryID: String? = nil, action: ResponseAction)
        /// A change to the reasoning entry `entryID`.
        case reasoning(entryID: String? = nil, action: ReasoningAction)
        /// A change to the tool-calls entry `entryID`.
        case toolCalls(entryID: String? = nil, action: ToolCallsAction)
    }

    /// Changes to a response.
    public enum ResponseAction: Sendable, Equatable {
        /// Text produced by `tokenCount` tokens (the text may be empty: a token that completes
        /// no character yet, or an end-of-generation token; `tokenCount` may be 0 for text held
        /// back until the end).
        case appendText(String, segmentID: String? = nil, tokenCount: Int)
        /// Replaces the text of segment `segmentID` (the last text segment when nil).
        case replaceTextSegment(String, segmentID: String? = nil, tokenCount: Int)
        /// Adds or replaces a custom segment (matched by id).
        case updateCustomSegment(any Transcript.CustomSegment)
        /// Adds an attachment segment.
        case addAttachmentSegment(Transcript.AttachmentSegment)
        /// Removes the attachment segment `id`.
        case removeAttachmentSegment(id: String)
        /// Merges values into the response's metadata.
        case updateMetadata(MetadataValues)
        /// The request's usage so far; each update replaces the previous one.
        case updateUsage(input: Usage.Input, output: Usage.Output, metadata: MetadataValues = [:])

        /// Case by case, metadata and custom segments by value.
        public static func == (a: ResponseAction, b: ResponseAction) -> Bool {
            switch (a, b) {
            case let (.appendText(t1, s1, n1), .appendText(t2, s2, n2)),
                 let (.replaceTextSegment(t1, s1, n1), .replaceTextSegment(t2, s2, n2)):
                return t1 == t2 && s1 == s2 && n1 == n2
            case let (.updateCustomSegment(x), .updateCustomSegment(y)): return Transcript.Segment.custom(x) == .custom(y)
            case let (.addAttachmentSegment(x), .addAttachmentSegment(y)): return x == y
            case let (.removeAttachmentSegment(x), .removeAttachmentSegment(y)): return x == y
            case let (.updateMetadata(x), .updateMetadata(y)): return metadataEqual(x, y)
            case let (.updateUsage(i1, o1, m1), .updateUsage(i2, o2, m2)):
                return i1 == i2 && o1 == o2 && metadataEqual(m1, m2)
            default: return false
            }
        }
    }

    /// Changes to a reasoning block.
    public enum ReasoningAction: Sendable, Equatable {
        /// Thinking text produced by `tokenCount` tokens (the think markers arrive as empty text
        /// with a count of 1).
        case appendText(String, segmentID: String? = nil, tokenCount: Int)
        /// Replaces the text of segment `segmentID`.
        case replaceTextSegment(String, segmentID: String? = nil, tokenCount: Int)
        /// A provider signature over the reasoning.
        case updateSignature(Data, tokenCount: Int)
        /// Merges values into the reasoning's metadata.
        case updateMetadata(MetadataValues)
        /// The request's usage so far.
        case updateUsage(input: Usage.Input, output: Usage.Output, metadata: MetadataValues = [:])

        /// Case by case, metadata by value.
        public static func == (a: ReasoningAction, b: ReasoningAction) -> Bool {
            switch (a, b) {
            case let (.appendText(t1, s1, n1), .appendText(t2, s2, n2)),
                 let (.replaceTextSegment(t1, s1, n1), .replaceTextSegment(t2, s2, n2)):
                return t1 == t2 && s1 == s2 && n1 == n2
            case let (.updateSignature(d1, n1), .updateSignature(d2, n2)): return d1 == d2 && n1 == n2
            case let (.updateMetadata(x), .updateMetadata(y)): return metadataEqual(x, y)
            case let (.updateUsage(i1, o1, m1), .updateUsage(i2, o2, m2)):
                return i1 == i2 && o1 == o2 && metadataEqual(m1, m2)
            default: return false
            }
        }
    }

    /// Changes to a tool-calls entry.
    public enum ToolCallsAction: Sendable, Equatable {
        /// A change to the call `id` of tool `name` (created on first mention).
        case toolCall(id: String, name: String, action: ToolCallAction)
        /// Drops the call `id`.
        case removeToolCall(id: String)
        /// Merges values into the entry's metadata.
        case updateMetadata(MetadataValues)
        /// The request's usage so far.
        case updateUsage(input: Usage.Input, output: Usage.Output, metadata: MetadataValues = [:])

        /// Case by case, metadata by value.
        public static func == (a: ToolCallsAction, b: ToolCallsAction) -> Bool {
            switch (a, b) {
            case let (.toolCall(i1, n1, a1), .toolCall(i2, n2, a2)): return i1 == i2 && n1 == n2 && a1 == a2
            case let (.removeToolCall(x), .removeToolCall(y)): return x == y
            case let (.updateMetadata(x), .updateMetadata(y)): return metadataEqual(x, y)
            case let (.updateUsage(i1, o1, m1), .updateUsage(i2, o2, m2)):
                return i1 == i2 && o1 == o2 && metadataEqual(m1, m2)
            default: return false
            }
        }
    }

    /// Changes to one tool call.
    public enum ToolCallAction: Sendable, Equatable {
        /// More of the call's JSON arguments, produced by `tokenCount` tokens.
        case appendArguments(String, tokenCount: Int)
        /// Merges values into the call's metadata.
        case updateMetadata(MetadataValues)

        /// Case by case, metadata by value.
        public static func == (a: ToolCallAction, b: ToolCallAction) -> Bool {
            switch (a, b) {
            case let (.appendArguments(t1, n1), .appendArguments(t2, n2)): return t1 == t2 && n1 == n2
            case let (.updateMetadata(x), .updateMetadata(y)): return metadataEqual(x, y)
            default: return false
            }
        }
    }
}

extension LanguageModelExecutorGenerationChannel.Event {
    /// Tokens this event reports as generated (0 for usage and metadata updates).
    var tokenCount: Int {
        switch self {
        case let .response(_, .appendText(_, _, n)), let .response(_, .replaceTextSegment(_, _, n)),
             let .reasoning(_, .appendText(_, _, n)), let .reasoning(_, .replaceTextSegment(_, _, n)),
             let .reasoning(_, .updateSignature(_, n)), let .toolCalls(_, .toolCall(_, _, .appendArguments(_, n))):
            return n
        default:
            return 0
        }
    }
}
