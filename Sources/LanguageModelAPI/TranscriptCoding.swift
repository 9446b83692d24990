// `Transcript` as JSON: an array of entries tagged by `type`, segments likewise. Metadata values
// encode through their own `Encodable`; they decode as plain JSON values (see `metadataValues`).
// Custom segments decode as `DecodedCustomSegment`: their original type is not recorded.
import Foundation

extension Transcript: Codable {
    /// Decodes the array of entries `encode(to:)` writes.
    public init(from decoder: any Decoder) throws {
        self.init(entries: try [CodedEntry](from: decoder).map(\.entry))
    }

    /// Encodes the entries as a JSON array.
    public func encode(to encoder: any Encoder) throws {
        try map(CodedEntry.init).encode(to: encoder)
    }
}

/// A custom segment read back from JSON: its id, the text it rendered as, and its content as JSON.
public struct DecodedCustomSegment: Transcript.CustomSegment {
    /// The id it was saved with.
    public let id: String
    /// Its content, as JSON.
    public let content: MetadataJSONValue
    /// The text it rendered as when saved.
    public let description: String
}

private enum Tag: String, Codable {
    case instructions, prompt, toolCalls, toolOutput, response, reasoning
    case text, structure, attachment, custom
}

private enum Key: String, CodingKey {
    case type, id, segments, toolDefinitions, options, contextOptions, metadata, responseFormat, calls, toolName
    case arguments, assetIDs, signature, content, source, label, name, description, parameters
}

private struct CodedSegment: Codable {
    let segment: Transcript.Segment
    init(_ segment: Transcript.Segment) { self.segment = segment }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let id = try c.decode(String.self, forKey: .id)
        switch try c.decode(Tag.self, forKey: .type) {
        case .text: segment = .text(.init(id: id, content: try c.decode(String.self, forKey: .content)))
        case .structure:
            segment = .structure(.init(id: id, source: try c.decode(String.self, forKey: .source),
                                       content: try GeneratedContent(json: try c.decode(String.self, forKey: .content))))
        case .attachment:
            segment = .attachment(.init(id: id, content: try c.decode(Transcript.Attachment.self, forKey: .content),
                                        label: try c.decodeIfPresent(String.self, forKey: .label)))
        case .custom:
            segment = .custom(DecodedCustomSegment(id: id, content: try c.decode(MetadataJSONValue.self, forKey: .content),
                                                   description: try c.decode(String.self, forKey: .description)))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "not a segment type")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(segment.id, forKey: .id)
        switch segment {
        case let .text(t):
            try c.encode(Tag.text, forKey: .type)
            try c.encode(t.content, forKey: .content)
        case let .structure(s):
            try c.encode(Tag.structure, forKey: .type)
            try c.encode(s.source, forKey: .source)
            try c.encode(s.content.jsonString, forKey: .content)
        case let .attachment(a):
            try c.encode(Tag.attachment, forKey: .type)
            try c.encode(a.content, forKey: .content)
            try c.encodeIfPresent(a.label, forKey: .label)
        case let .custom(s):
            try c.encode(Tag.custom, forKey: .type)
            try c.encode(s.content, forKey: .content)
            try c.encode(s.description, forKey: .description)
        }
    }
}

private struct CodedToolDefinition: Codable {
    let definition: Transcript.ToolDefinition
    init(_ definition: Transcript.ToolDefinition) { self.definition = definition }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        definition = .init(name: try c.decode(String.self, forKey: .name), description: try c.decode(String.self, forKey: .description),
                           parameters: try c.decode(GenerationSchema.self, forKey: .parameters))
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(definition.name, forKey: .name)
        try c.encode(definition.description, forKey: .description)
        try c.encode(definition.parameters, forKey: .parameters)
    }
}

private struct CodedToolCall: Codable {
    let call: Transcript.ToolCall
    init(_ call: Transcript.ToolCall) { self.call = call }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        call = .init(id: try c.decode(String.self, forKey: .id),
                     metadata: metadataValues(try c.decodeIfPresent([String: MetadataJSONValue].self, forKey: .metadata)),
                     toolName: try c.decode(String.self, forKey: .toolName),
                     arguments: try GeneratedContent(json: try c.decode(String.self, forKey: .arguments)))
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(call.id, forKey: .id)
        try c.encode(call.toolName, forKey: .toolName)
        try c.encode(call.arguments.jsonString, forKey: .arguments)
        try c.encode(EncodableMetadata(values: call.metadata), forKey: .metadata)
    }
}

private struct CodedEntry: Codable {
    let entry: Transcript.Entry
    init(_ entry: Transcript.Entry) { self.entry = entry }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let id = try c.decode(String.self, forKey: .id)
        func segments() throws -> [Transcript.Segment] { try c.decode([CodedSegment].self, forKey: .segments).map(\.segment) }
        func metadata() throws -> MetadataValues {
            metadataValues(try c.decodeIfPresent([String: MetadataJSONValue].self, forKey: .metadata))
        }
        switch try c.decode(Tag.self, forKey: .type) {
        case .instructions:
            entry = .instructions(.init(id: id, segments: try segments(),
                                        toolDefinitions: try c.decode([CodedToolDefinition].self, forKey: .toolDefinitions).map(\.definition)))
        case .prompt:
            let format = try c.decodeIfPresent(GenerationSchema.self, forKey: .responseFormat)
            entry = .prompt(.init(id: id, metadata: try metadata(), segments: try segments(),
                                  options: try c.decode(GenerationOptions.self, forKey: .options),
                                  responseFormat: format.map(Transcript.ResponseFormat.init(schema:)),
                                  contextOptions: try c.decode(ContextOptions.self, forKey: .contextOptions)))
        case .toolCalls:
            entry = .toolCalls(.init(id: id, try c.decode([CodedToolCall].self, forKey: .calls).map(\.call)))
        case .toolOutput:
            entry = .toolOutput(.init(id: id, toolName: try c.decode(String.self, forKey: .toolName), segments: try segments()))
        case .response:
            var response = Transcript.Response(id: id, metadata: try metadata(), segments: try segments())
            response.assetIDs = try c.decodeIfPresent([String].self, forKey: .assetIDs) ?? []
            entry = .response(response)
        case .reasoning:
            entry = .reasoning(.init(id: id, metadata: try metadata(), segments: try segments(),
                                     signature: try c.decodeIfPresent(Data.self, forKey: .signature)))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "not an entry type")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(entry.id, forKey: .id)
        switch entry {
        case let .instructions(e):
            try c.encode(Tag.instructions, forKey: .type)
            try c.encode(e.segments.map(CodedSegment.init), forKey: .segments)
            try c.encode(e.toolDefinitions.map(CodedToolDefinition.init), forKey: .toolDefinitions)
        case let .prompt(e):
            try c.encode(Tag.prompt, forKey: .type)
            try c.encode(e.segments.map(CodedSegment.init), forKey: .segments)
            try c.encode(e.options, forKey: .options)
            try c.encode(e.contextOptions, forKey: .contextOptions)
            try c.encode(EncodableMetadata(values: e.metadata), forKey: .metadata)
            if case let .schema(schema)? = e.responseFormat?.kind { try c.encode(schema, forKey: .responseFormat) }
        case let .toolCalls(e):
            try c.encode(Tag.toolCalls, forKey: .type)
            try c.encode(e.map(CodedToolCall.init), forKey: .calls)
        case let .toolOutput(e):
            try c.encode(Tag.toolOutput, forKey: .type)
            try c.encode(e.toolName, forKey: .toolName)
            try c.encode(e.segments.map(CodedSegment.init), forKey: .segments)
        case let .response(e):
            try c.encode(Tag.response, forKey: .type)
            try c.encode(e.segments.map(CodedSegment.init), forKey: .segments)
            try c.encode(e.assetIDs, forKey: .assetIDs)
            try c.encode(EncodableMetadata(values: e.metadata), forKey: .metadata)
        case let .reasoning(e):
            try c.encode(Tag.reasoning, forKey: .type)
            try c.encode(e.segments.map(CodedSegment.init), forKey: .segments)
            try c.encodeIfPresent(e.signature, forKey: .signature)
            try c.encode(EncodableMetadata(values: e.metadata), forKey: .metadata)
        }
    }
}
