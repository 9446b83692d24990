// The value types inside a `Transcript`, in Apple's shapes.
import Foundation

extension Transcript {
    /// Plain text.
    public struct TextSegment: Sendable, Equatable, Identifiable, Codable {
        /// A unique id.
        public var id: String
        /// The text.
        public var content: String
        /// A text segment.
        public init(id: String = UUID().uuidString, content: String) {
            self.id = id
            self.content = content
        }
    }

    /// Content generated for a schema.
    public struct StructuredSegment: Sendable, Equatable, Identifiable {
        /// A unique id.
        public var id: String
        /// The schema's name.
        public var source: String
        /// The content.
        public var content: GeneratedContent
        /// A structured segment.
        public init(id: String = UUID().uuidString, source: String, content: GeneratedContent) {
            self.id = id
            self.source = source
            self.content = content
        }
        /// A structured segment named by its schema.
        public init(id: String = UUID().uuidString, schemaName: String, content: GeneratedContent) {
            self.init(id: id, source: schemaName, content: content)
        }
        /// The schema's name (as `source`).
        public var schemaName: String {
            get { source }
            set { source = newValue }
        }
    }

    /// An image and its label.
    public struct AttachmentSegment: Sendable, Equatable, Identifiable, Codable {
        /// A unique id.
        public var id: String
        /// The attachment.
        public var content: Attachment
        /// How prompts refer to it.
        public var label: String?
        /// An attachment segment.
        public init(id: String = UUID().uuidString, content: Attachment, label: String? = nil) {
            self.id = id
            self.content = content
            self.label = label
        }
    }

    /// What an attachment holds.
    public enum Attachment: Sendable, Equatable, Codable {
        /// An image.
        case image(ImageAttachment)
    }

    /// An image, by URL or by its encoded bytes (Apple's also wraps `CGImage`, absent on Linux).
    public struct ImageAttachment: Sendable, Equatable, Codable {
        /// Where the image is, if it came from a file.
        public let url: URL?
        /// The encoded image (PNG, JPEG, ...), if it came as bytes. Quanta's addition.
        public let data: Data?
        /// An image file.
        public init(imageURL: URL) {
            url = imageURL
            data = nil
        }
        /// An encoded image. Quanta's addition.
        public init(data: Data) {
            url = nil
            self.data = data
        }
    }

    /// The system message and the tools the session offers.
    public struct Instructions: Sendable, Equatable, Identifiable {
        /// A unique id.
        public var id: String
        /// The content.
        public var segments: [Segment]
        /// The tools offered to the model.
        public var toolDefinitions: [ToolDefinition]
        /// Instructions.
        public init(id: String = UUID().uuidString, segments: [Segment], toolDefinitions: [ToolDefinition]) {
            self.id = id
            self.segments = segments
            self.toolDefinitions = toolDefinitions
        }
        /// Instructions without tools. Quanta's addition.
        public init(id: String = UUID().uuidString, segments: [Segment]) {
            self.init(id: id, segments: segments, toolDefinitions: [])
        }
    }

    /// A tool as the model sees it: name, description and the JSON Schema of its arguments.
    public struct ToolDefinition: Sendable, Equatable {
        /// The tool's name.
        public var name: String
        /// What the tool does.
        public var description: String
        /// The schema of the tool's arguments.
        public var parameters: GenerationSchema
        /// A definition.
        public init(name: String, description: String, parameters: GenerationSchema) {
            self.name = name
            self.description = description
            self.parameters = parameters
        }
        /// The definition of `tool`.
        public init(tool: some Tool) {
            self.init(name: tool.name, description: tool.description, parameters: tool.parameters)
        }
        /// Same name, description and schema encoding.
        public static func == (lhs: ToolDefinition, rhs: ToolDefinition) -> Bool {
            lhs.name == rhs.name && lhs.description == rhs.description && sameSchema(lhs.parameters, rhs.parameters)
        }
    }

    /// A user turn and the options it was asked with.
    public struct Prompt: Sendable, Equatable, Identifiable {
        /// A unique id.
        public var id: String
        /// The content.
        public var segments: [Segment]
        /// Generation options of the request.
        public var options: GenerationOptions
        /// Context options of the request.
        public var contextOptions: ContextOptions
        /// Values the caller attached.
        public var metadata: MetadataValues
        /// The schema the response had to follow, if any.
        public var responseFormat: ResponseFormat?
        /// A prompt (FM27).
        public init(id: String = UUID().uuidString, metadata: MetadataValues = [:], segments: [Segment],
                    options: GenerationOptions = GenerationOptions(), responseFormat: ResponseFormat? = nil,
                    contextOptions: ContextOptions = ContextOptions()) {
            self.id = id
            self.metadata = metadata
            self.segments = segments
            self.options = options
            self.responseFormat = responseFormat
            self.contextOptions = contextOptions
        }
        /// A prompt (FM26).
        public init(id: String = UUID().uuidString, segments: [Segment], options: GenerationOptions = GenerationOptions(),
                    responseFormat: ResponseFormat? = nil) {
            self.init(id: id, metadata: [:], segments: segments, options: options, responseFormat: responseFormat)
        }
        /// Field by field, metadata by value.
        public static func == (lhs: Prompt, rhs: Prompt) -> Bool {
            lhs.id == rhs.id && lhs.segments == rhs.segments && lhs.options == rhs.options
                && lhs.contextOptions == rhs.contextOptions && lhs.responseFormat == rhs.responseFormat
                && metadataEqual(lhs.metadata, rhs.metadata)
        }
    }

    /// The schema a response was asked to follow.
    public struct ResponseFormat: Sendable, Equatable {
        /// The forms a format takes.
        public enum Kind: Sendable, Equatable {
            /// A generation schema.
            case schema(GenerationSchema)
            /// Same schema encoding.
            public static func == (lhs: Kind, rhs: Kind) -> Bool {
                switch (lhs, rhs) { case let (.schema(a), .schema(b)): return sameSchema(a, b) }
            }
        }
        /// The format.
        public let kind: Kind
        /// The format of a `Generable` type.
        public init<Content: Generable>(type: Content.Type) { kind = .schema(Content.generationSchema) }
        /// The format of a schema.
        public init(schema: GenerationSchema) { kind = .schema(schema) }
        /// The schema's name.
        public var name: String {
            switch kind { case let .schema(s): return s.name }
        }
    }

    /// The calls of one model turn.
    public struct ToolCalls: Sendable, Equatable, Identifiable, RandomAccessCollection {
        /// A unique id.
        public var id: String
        private var calls: [ToolCall]
        /// The calls.
        public init<S: Sequence>(id: String = UUID().uuidString, _ calls: S) where S.Element == ToolCall {
            self.id = id
            self.calls = Array(calls)
        }
        /// 0.
        public var startIndex: Int { calls.startIndex }
        /// The number of calls.
        public var endIndex: Int { calls.endIndex }
        /// The call at `position`.
        public subscript(position: Int) -> ToolCall { calls[position] }
    }

    /// One call: which tool, with which arguments.
    public struct ToolCall: Sendable, Equatable, Identifiable {
        /// A unique id (tool outputs refer to it).
        public var id: String
        /// The tool's name.
        public var toolName: String
        /// The arguments the model wrote.
        public var arguments: GeneratedContent
        /// Values attached to the call.
        public var metadata: MetadataValues
        /// A call.
        public init(id: String, toolName: String, arguments: GeneratedContent) {
            self.init(id: id, metadata: [:], toolName: toolName, arguments: arguments)
        }
        /// A call with metadata.
        public init(id: String, metadata: MetadataValues, toolName: String, arguments: GeneratedContent) {
            self.id = id
            self.metadata = metadata
            self.toolName = toolName
            self.arguments = arguments
        }
        /// Field by field, metadata by value.
        public static func == (lhs: ToolCall, rhs: ToolCall) -> Bool {
            lhs.id == rhs.id && lhs.toolName == rhs.toolName && lhs.arguments == rhs.arguments
                && metadataEqual(lhs.metadata, rhs.metadata)
        }
    }

    /// What a tool returned for the call `id`.
    public struct ToolOutput: Sendable, Equatable, Identifiable {
        /// The id of the call this answers.
        public var id: String
        /// The tool's name.
        public var toolName: String
        /// The output.
        public var segments: [Segment]
        /// A tool output.
        public init(id: String, toolName: String, segments: [Segment]) {
            self.id = id
            self.toolName = toolName
            self.segments = segments
        }
    }

    /// The model's answer.
    public struct Response: Sendable, Equatable, Identifiable {
        /// A unique id.
        public var id: String
        /// Ids of assets the response came from (none for Quanta).
        public var assetIDs: [String]
        /// The content.
        public var segments: [Segment]
        /// Values attached to the response.
        public var metadata: MetadataValues
        /// A response (FM26).
        public init(id: String = UUID().uuidString, assetIDs: [String], segments: [Segment]) {
            self.id = id
            self.assetIDs = assetIDs
            self.segments = segments
            metadata = [:]
        }
        /// A response (FM27).
        public init(id: String = UUID().uuidString, metadata: MetadataValues = [:], segments: [Segment]) {
            self.id = id
            assetIDs = []
            self.segments = segments
            self.metadata = metadata
        }
        /// Field by field, metadata by value.
        public static func == (lhs: Response, rhs: Response) -> Bool {
            lhs.id == rhs.id && lhs.assetIDs == rhs.assetIDs && lhs.segments == rhs.segments
                && metadataEqual(lhs.metadata, rhs.metadata)
        }
    }

    /// The model's thinking.
    public struct Reasoning: Sendable, Equatable, Identifiable {
        /// A unique id.
        public var id: String
        /// The content.
        public var segments: [Segment]
        /// A provider signature over the reasoning (none for local models).
        public var signature: Data?
        /// Values attached to the reasoning.
        public var metadata: MetadataValues
        /// Reasoning.
        public init(id: String = UUID().uuidString, metadata: MetadataValues = [:], segments: [Segment], signature: Data? = nil) {
            self.id = id
            self.metadata = metadata
            self.segments = segments
            self.signature = signature
        }
        /// Field by field, metadata by value.
        public static func == (lhs: Reasoning, rhs: Reasoning) -> Bool {
            lhs.id == rhs.id && lhs.segments == rhs.segments && lhs.signature == rhs.signature
                && metadataEqual(lhs.metadata, rhs.metadata)
        }
    }
}
