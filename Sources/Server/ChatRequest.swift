// `POST /v1/chat/completions` bodies read into what the engine runs: a transcript, the tools it
// may call, the schema of its answer, its options. Everything is checked here, before a slot is
// taken; a field this server cannot honour is a 400, never silently ignored.
import Foundation
import JSON
import LanguageModelAPI

/// A chat completion request, checked and mapped onto the FM27 executor request.
struct ChatRequest {
    var model: String?
    var transcript: Transcript
    var tools: [Transcript.ToolDefinition]
    var schema: GenerationSchema?
    var options: GenerationOptions
    /// The sampling fields the request names (the server's settings fill the rest).
    var sampling: RequestSampling
    /// Texts that end the answer where they appear (not included in it).
    var stop: [String]
    var stream: Bool
    var includeUsage: Bool
    /// With `logprobs: true`: how many most likely tokens to list per answer token
    /// (`top_logprobs`, 0…20); nil = no log-probabilities.
    var logprobs: Int?
    /// How much a thinking model may think (nil: its default). OpenAI's body has no field for it;
    /// Ollama's `think` sets it.
    var reasoningLevel: ContextOptions.ReasoningLevel?

    /// Fields read by this server; the harmless ones it ignores are listed apart.
    static let known: Set<String> = [
        "model", "messages", "stream", "stream_options", "max_tokens", "max_completion_tokens", "temperature", "top_p", "top_k",
        "min_p", "seed", "stop", "presence_penalty", "frequency_penalty", "tools", "tool_choice", "response_format", "logprobs",
        "top_logprobs", "n", "user", "metadata", "store", "parallel_tool_calls",
    ]

    init(body: [UInt8]) throws(APIError) {
        let fields = try RequestFields.parse(body)
        try fields.rejectUnknown(Self.known)
        model = try fields.string("model")
        stream = try fields.bool("stream") ?? false
        includeUsage = try fields.object("stream_options")?.bool("include_usage") ?? false
        if let n = try fields.integer("n", in: 1...Int.max), n != 1 {
            throw APIError.unsupported("n", "n must be 1: this server returns one choice per request")
        }
        let top = try fields.integer("top_logprobs", in: 0...20)
        if try fields.bool("logprobs") == true {
            logprobs = top ?? 0
        } else if top != nil {
            throw APIError.invalid("top_logprobs", "top_logprobs needs logprobs: true")
        }
        stop = try Self.stops(fields)
        sampling = try RequestSampling(fields)
        var maximum = try fields.integer("max_completion_tokens", in: 1...Int(Int32.max))
        if maximum == nil { maximum = try fields.integer("max_tokens", in: 1...Int(Int32.max)) }
        options = GenerationOptions(sampling: nil, temperature: nil, maximumResponseTokens: maximum)

        var tools: [Transcript.ToolDefinition] = []
        for (i, value) in (try fields.array("tools") ?? []).enumerated() { tools.append(try Self.tool(value, path: "tools[\(i)]")) }
        switch try ToolChoice(fields["tool_choice"]) {
        case .auto: options.toolCallingMode = .allowed
        case .none: options.toolCallingMode = .disallowed
        case .required: options.toolCallingMode = .required
        case let .function(name):
            guard let tool = tools.first(where: { $0.name == name }) else {
                throw APIError.invalid("tool_choice", "tool_choice names the function '\(name)', which is not in tools")
            }
            tools = [tool]
            options.toolCallingMode = .required
        }
        if options.toolCallingMode == .required && tools.isEmpty {
            throw APIError.invalid("tool_choice", "tool_choice requires a tool call but no tools are given")
        }
        self.tools = tools
        schema = try Self.responseSchema(fields.object("response_format"))
        guard let messages = try fields.array("messages"), !messages.isEmpty else {
            throw APIError.invalid("messages", "messages must be a non-empty array")
        }
        transcript = try ChatMessages.transcript(messages)
    }

    private static func stops(_ fields: RequestFields) throws(APIError) -> [String] {
        switch fields["stop"] {
        case nil: return []
        case let .string(s)?: return s.isEmpty ? [] : [s]
        case let .array(items)?:
            var out: [String] = []
            for item in items {
                guard case let .string(s) = item else { throw APIError.invalid("stop", "stop must be a string or an array of strings") }
                if !s.isEmpty { out.append(s) }
            }
            guard out.count <= 4 else { throw APIError.invalid("stop", "stop takes at most 4 sequences") }
            return out
        default: throw APIError.invalid("stop", "stop must be a string or an array of strings")
        }
    }

    /// `{"type": "function", "function": {"name", "description", "parameters"}}`.
    private static func tool(_ value: JSONValue, path: String) throws(APIError) -> Transcript.ToolDefinition {
        let fields = try RequestFields(value, path: path)
        guard try fields.string("type") == "function", let function = try fields.object("function") else {
            throw APIError.invalid(path, "\(path) must be {\"type\": \"function\", \"function\": {...}}")
        }
        guard let name = try function.string("name"), !name.isEmpty else {
            throw APIError.invalid("\(path).function.name", "\(path).function.name must be a non-empty string")
        }
        let parameters = function["parameters"] ?? .object([("type", .string("object")), ("properties", .object([]))])
        return Transcript.ToolDefinition(name: name, description: try function.string("description") ?? "",
                                         parameters: try JSONSchemaInput.schema(parameters, param: "\(path).function.parameters"))
    }

    /// `text` (none), `json_object` (any JSON object) or `json_schema` (that schema).
    private static func responseSchema(_ format: RequestFields?) throws(APIError) -> GenerationSchema? {
        guard let format else { return nil }
        switch try format.string("type") {
        case nil, "text": return nil
        case "json_object":
            // Any JSON object, by constrained decoding (the Grammar module's free-key object shape).
            return GenerationSchema.anyJSONObject
        case "json_schema":
            guard let wrapper = try format.object("json_schema"), let schema = wrapper["schema"] else {
                throw APIError.invalid("response_format.json_schema.schema", "response_format json_schema needs json_schema.schema")
            }
            return try JSONSchemaInput.schema(schema, param: "response_format.json_schema.schema", name: try wrapper.string("name"))
        case let other?:
            throw APIError.invalid("response_format.type", "response_format.type must be text, json_object or json_schema, got \(other)")
        }
    }
}

/// `tool_choice`: `"auto"`, `"none"`, `"required"` or `{"type": "function", "function": {"name"}}`.
enum ToolChoice: Equatable {
    case auto, none, required, function(String)

    init(_ value: JSONValue?) throws(APIError) {
        switch value {
        case nil, .string("auto")?: self = .auto
        case .string("none")?: self = .none
        case .string("required")?: self = .required
        case let value?:
            if let name = value["function"]?["name"], case let .string(s) = name, value["type"] == .string("function") {
                self = .function(s)
            } else {
                throw APIError.invalid("tool_choice", "tool_choice must be auto, none, required or {\"type\": \"function\", \"function\": {\"name\": ...}}")
            }
        }
    }
}
