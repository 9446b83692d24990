// The conversation record, spelled as Apple's `Transcript`: a collection of entries, each a list
// of segments. Quanta renders text and structured segments, tool calls and tool outputs;
// attachments are `unsupportedTranscriptContent`.
import Foundation

/// Everything a session has said and heard, in order: instructions, prompts, reasoning, tool
/// calls, tool outputs and responses. Codable, so a conversation can be saved and a session
/// restored with `init(model:tools:transcript:)`.
public struct Transcript: Sendable, Equatable, RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    private var entries: [Entry]

    /// A transcript of these entries.
    public init(entries: some Sequence<Entry> = []) { self.entries = Array(entries) }
    /// An empty transcript.
    public init() { entries = [] }

    /// Index of the first entry (0).
    public var startIndex: Int { entries.startIndex }
    /// One past the last entry.
    public var endIndex: Int { entries.endIndex }
    /// The entry at `index`.
    public subscript(index: Int) -> Entry {
        get { entries[index] }
        set { entries[index] = newValue }
    }
    /// Replaces entries (the collection's one mutation primitive).
    public mutating func replaceSubrange<C: Collection<Entry>>(_ subrange: Range<Int>, with newElements: C) {
        entries.replaceSubrange(subrange, with: newElements)
    }

    /// Every entry except the leading instructions; setting it keeps the instructions.
    public var history: ArraySlice<Entry> {
        get {
            if case .instructions? = entries.first { return entries.dropFirst() }
            return entries[...]
        }
        set {
            if case let .instructions(i)? = entries.first {
                entries = [.instructions(i)] + Array(newValue)
            } else {
                entries = Array(newValue)
            }
        }
    }

    /// One turn of the conversation.
    public enum Entry: Sendable, Equatable, Identifiable {
        /// What the model is told to be, and the tools it has (rendered as the system message).
        case instructions(Instructions)
        /// A user prompt.
        case prompt(Prompt)
        /// Calls the model made to tools.
        case toolCalls(ToolCalls)
        /// What a tool returned.
        case toolOutput(ToolOutput)
        /// The model's answer.
        case response(Response)
        /// The model's thinking before a response (not sent back to the model in later turns).
        case reasoning(Reasoning)

        /// The id of the wrapped value.
        public var id: String {
            switch self {
            case let .instructions(e): return e.id
            case let .prompt(e): return e.id
            case let .toolCalls(e): return e.id
            case let .toolOutput(e): return e.id
            case let .response(e): return e.id
            case let .reasoning(e): return e.id
            }
        }

        /// The entry's segments (none for tool calls).
        var segments: [Segment] {
            switch self {
            case let .instructions(e): return e.segments
            case let .prompt(e): return e.segments
            case .toolCalls: return []
            case let .toolOutput(e): return e.segments
            case let .response(e): return e.segments
            case let .reasoning(e): return e.segments
            }
        }
    }

    /// A piece of an entry's content.
    public enum Segment: Sendable, Equatable, Identifiable {
        /// Plain text.
        case text(TextSegment)
        /// Generated content of a schema (guided generation).
        case structure(StructuredSegment)
        /// An image; Quanta's text models cannot render it.
        case attachment(AttachmentSegment)
        /// A segment type of the application's own (rendered through its `promptRepresentation`).
        case custom(any CustomSegment)

        /// The id of the wrapped value.
        public var id: String {
            switch self {
            case let .text(s): return s.id
            case let .structure(s): return s.id
            case let .attachment(s): return s.id
            case let .custom(s): return s.id
            }
        }

        /// Same case and equal content (custom segments: same type and equal).
        public static func == (lhs: Segment, rhs: Segment) -> Bool {
            switch (lhs, rhs) {
            case let (.text(a), .text(b)): return a == b
            case let (.structure(a), .structure(b)): return a == b
            case let (.attachment(a), .attachment(b)): return a == b
            case let (.custom(a), .custom(b)): return sameValue(a, b)
            default: return false
            }
        }
    }

    /// A segment type an application defines (Apple's `Transcript.CustomSegment`).
    public protocol CustomSegment: InstructionsRepresentable, PromptRepresentable, CustomStringConvertible, Equatable,
        Identifiable, Sendable {
        /// What the segment holds.
        associatedtype Content: Codable, Equatable, Sendable
        /// A unique id.
        var id: String { get }
        /// The content.
        var content: Content { get }
    }
}

extension Transcript.CustomSegment {
    /// The description, as prompt text.
    public var promptRepresentation: Prompt { Prompt(description) }
    /// The description, as instructions text.
    public var instructionsRepresentation: Instructions { Instructions(description) }
}

extension Transcript.Entry {
    /// The entry's text segments joined, or nil if it has a segment Quanta cannot render as text
    /// (an attachment). Structured segments render as their JSON, custom ones as their prompt text.
    package var plainText: String? {
        var text = ""
        for segment in segments {
            switch segment {
            case let .text(t): text += t.content
            case let .structure(s): text += s.content.jsonString
            case let .custom(c): text += c.promptRepresentation.text
            case .attachment: return nil
            }
        }
        return text
    }
}

extension Transcript.Segment {
    /// A text segment with a fresh id.
    static package func text(_ content: String) -> Transcript.Segment { .text(Transcript.TextSegment(content: content)) }
}
