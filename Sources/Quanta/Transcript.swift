// The conversation record, spelled as Apple's `Transcript`: a collection of entries, each a list
// of segments. Quanta renders text segments; anything else is `unsupportedTranscriptContent`.
import Foundation

/// Everything a session has said and heard, in order: instructions, prompts, reasoning and
/// responses.
/// Codable, so a conversation can be saved and a session restored with `init(model:transcript:)`.
public struct Transcript: Sendable, Equatable, Codable, RandomAccessCollection, RangeReplaceableCollection {
    private var entries: [Entry]

    /// An empty transcript.
    public init() { entries = [] }
    /// A transcript of these entries.
    public init(entries: some Sequence<Entry>) { self.entries = Array(entries) }

    /// Index of the first entry (0).
    public var startIndex: Int { entries.startIndex }
    /// One past the last entry.
    public var endIndex: Int { entries.endIndex }
    /// The entry at `position`.
    public subscript(position: Int) -> Entry { entries[position] }
    /// Replaces entries (the collection's one mutation primitive).
    public mutating func replaceSubrange<C: Collection<Entry>>(_ subrange: Range<Int>, with newElements: C) {
        entries.replaceSubrange(subrange, with: newElements)
    }

    /// Every entry except leading instructions.
    public var history: ArraySlice<Entry> {
        if case .instructions? = entries.first { return entries.dropFirst() }
        return entries[...]
    }

    /// One turn of the conversation.
    public enum Entry: Sendable, Equatable, Codable, Identifiable {
        /// What the model is told to be (rendered as the system message).
        case instructions(Instructions)
        /// A user prompt.
        case prompt(Prompt)
        /// The model's thinking before a response (not sent back to the model in later turns).
        case reasoning(Reasoning)
        /// The model's answer.
        case response(Response)

        /// The id of the wrapped value.
        public var id: String {
            switch self {
            case let .instructions(e): return e.id
            case let .prompt(e): return e.id
            case let .reasoning(e): return e.id
            case let .response(e): return e.id
            }
        }

        /// The entry's segments.
        public var segments: [Segment] {
            switch self {
            case let .instructions(e): return e.segments
            case let .prompt(e): return e.segments
            case let .reasoning(e): return e.segments
            case let .response(e): return e.segments
            }
        }
    }

    /// A piece of an entry's content.
    public enum Segment: Sendable, Equatable, Codable, Identifiable {
        /// Plain text.
        case text(TextSegment)
        /// Binary content with a label (for example an image); Quanta models cannot render it.
        case attachment(AttachmentSegment)

        /// The id of the wrapped value.
        public var id: String {
            switch self {
            case let .text(s): return s.id
            case let .attachment(s): return s.id
            }
        }
    }

    /// Plain text.
    public struct TextSegment: Sendable, Equatable, Codable, Identifiable {
        /// A unique id.
        public var id: String
        /// The text.
        public var content: String
        /// A text segment with a fresh id.
        public init(id: String = UUID().uuidString, content: String) {
            self.id = id
            self.content = content
        }
    }

    /// Binary content (Apple's attachment segment, with `Data` instead of `CGImage`).
    public struct AttachmentSegment: Sendable, Equatable, Codable, Identifiable {
        /// A unique id.
        public var id: String
        /// What the content is, e.g. `"image"`.
        public var label: String
        /// The bytes.
        public var data: Data
        /// An attachment with a fresh id.
        public init(id: String = UUID().uuidString, label: String, data: Data) {
            self.id = id
            self.label = label
            self.data = data
        }
    }

    /// The system message.
    public struct Instructions: Sendable, Equatable, Codable, Identifiable {
        /// A unique id.
        public var id: String
        /// The content.
        public var segments: [Segment]
        /// Instructions with a fresh id.
        public init(id: String = UUID().uuidString, segments: [Segment]) {
            self.id = id
            self.segments = segments
        }
    }

    /// A user turn and the options it was asked with.
    public struct Prompt: Sendable, Equatable, Codable, Identifiable {
        /// A unique id.
        public var id: String
        /// The content.
        public var segments: [Segment]
        /// Generation options of the request.
        public var options: GenerationOptions
        /// Context options of the request.
        public var contextOptions: ContextOptions
        /// A prompt with a fresh id.
        public init(id: String = UUID().uuidString, segments: [Segment], options: GenerationOptions = GenerationOptions(),
                    contextOptions: ContextOptions = ContextOptions()) {
            self.id = id
            self.segments = segments
            self.options = options
            self.contextOptions = contextOptions
        }
    }

    /// The model's thinking.
    public struct Reasoning: Sendable, Equatable, Codable, Identifiable {
        /// A unique id.
        public var id: String
        /// The content.
        public var segments: [Segment]
        /// A provider signature over the reasoning (none for local models).
        public var signature: Data?
        /// Reasoning with a fresh id.
        public init(id: String = UUID().uuidString, segments: [Segment], signature: Data? = nil) {
            self.id = id
            self.segments = segments
            self.signature = signature
        }
    }

    /// The model's answer.
    public struct Response: Sendable, Equatable, Codable, Identifiable {
        /// A unique id.
        public var id: String
        /// The content.
        public var segments: [Segment]
        /// A response with a fresh id.
        public init(id: String = UUID().uuidString, segments: [Segment]) {
            self.id = id
            self.segments = segments
        }
    }
}

extension Transcript.Entry {
    /// The entry's text segments joined, or nil if it has any other kind of segment.
    var plainText: String? {
        var text = ""
        for segment in segments {
            guard case let .text(t) = segment else { return nil }
            text += t.content
        }
        return text
    }
}
