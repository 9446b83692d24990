// Readable one-line-per-entry descriptions, for logs and debugging.

extension Transcript.TextSegment: CustomStringConvertible {
    /// The text.
    public var description: String { content }
}

extension Transcript.StructuredSegment: CustomStringConvertible {
    /// The content's JSON.
    public var description: String { content.jsonString }
}

extension Transcript.AttachmentSegment: CustomStringConvertible {
    /// `[image label]`.
    public var description: String { "[image\(label.map { " " + $0 } ?? "")]" }
}

extension Transcript.Segment: CustomStringConvertible {
    /// The wrapped segment's description.
    public var description: String {
        switch self {
        case let .text(s): return s.description
        case let .structure(s): return s.description
        case let .attachment(s): return s.description
        case let .custom(s): return s.description
        }
    }
}

private func joined(_ segments: [Transcript.Segment]) -> String { segments.map(\.description).joined() }

extension Transcript.Instructions: CustomStringConvertible {
    /// `Instructions: …` and the tools' names.
    public var description: String {
        "Instructions: \(joined(segments))" + (toolDefinitions.isEmpty ? "" : " [tools: \(toolDefinitions.map(\.name).joined(separator: ", "))]")
    }
}

extension Transcript.Prompt: CustomStringConvertible {
    /// `Prompt: …`.
    public var description: String { "Prompt: \(joined(segments))" }
}

extension Transcript.ResponseFormat: CustomStringConvertible {
    /// The schema's name.
    public var description: String { "ResponseFormat: \(name)" }
}

extension Transcript.ToolCall: CustomStringConvertible {
    /// `name(arguments JSON)`.
    public var description: String { "\(toolName)(\(arguments.jsonString))" }
}

extension Transcript.ToolCalls: CustomStringConvertible {
    /// `ToolCalls: a(…), b(…)`.
    public var description: String { "ToolCalls: " + map(\.description).joined(separator: ", ") }
}

extension Transcript.ToolOutput: CustomStringConvertible {
    /// `ToolOutput name: …`.
    public var description: String { "ToolOutput \(toolName): \(joined(segments))" }
}

extension Transcript.Response: CustomStringConvertible {
    /// `Response: …`.
    public var description: String { "Response: \(joined(segments))" }
}

extension Transcript.Reasoning: CustomStringConvertible {
    /// `Reasoning: …`.
    public var description: String { "Reasoning: \(joined(segments))" }
}

extension Transcript.Entry: CustomStringConvertible {
    /// The wrapped entry's description.
    public var description: String {
        switch self {
        case let .instructions(e): return e.description
        case let .prompt(e): return e.description
        case let .toolCalls(e): return e.description
        case let .toolOutput(e): return e.description
        case let .response(e): return e.description
        case let .reasoning(e): return e.description
        }
    }
}
