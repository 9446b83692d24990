// Ollama's `/api/chat` and `/api/generate` bodies renamed into the OpenAI chat body that
// `ChatRequest` reads, so both APIs share one set of checks.
import JSON
import LanguageModelAPI

enum OllamaRequest {
    /// Ollama `options` this server maps, and the OpenAI field each becomes.
    static let mappedOptions: [String: String] = [
        "num_predict": "max_tokens", "temperature": "temperature", "top_k": "top_k", "top_p": "top_p", "min_p": "min_p",
        "seed": "seed", "stop": "stop", "frequency_penalty": "frequency_penalty", "presence_penalty": "presence_penalty",
    ]
    /// Options about how the runtime runs, which Quanta chooses itself: accepted, no effect.
    static let ignoredOptions: Set<String> = ["num_thread", "num_gpu", "num_batch", "main_gpu", "use_mmap", "use_mlock", "numa"]

    /// Ollama's `think`: thinking on at the model's default budget, off, or a level.
    enum Think: Equatable {
        case on, off
        case level(ContextOptions.ReasoningLevel)

        /// `true`, `false`, `"high"`, `"medium"` or `"low"` (nil: absent).
        init?(_ value: JSONValue?) throws(APIError) {
            switch value {
            case nil: return nil
            case .bool(true)?: self = .on
            case .bool(false)?: self = .off
            case .string("high")?: self = .level(.deep)
            case .string("medium")?: self = .level(.moderate)
            case .string("low")?: self = .level(.light)
            default: throw APIError.invalid("think", "think must be true, false, \"high\", \"medium\" or \"low\"")
            }
        }

        /// The reasoning level the engine runs with (nil: the model's default, all of the budget).
        var reasoningLevel: ContextOptions.ReasoningLevel? {
            switch self {
            case .on: return nil
            case .off: return .custom("off")
            case let .level(level): return level
            }
        }
    }

    /// The OpenAI chat body for an Ollama `/api/chat` (`messages`, `tools`) or `/api/generate`
    /// (`prompt`, `system`) body (`stream` defaults to true, as Ollama's does), and its `think`.
    /// `num_ctx` above `contextSize` is refused (each slot's window is fixed at startup); at or
    /// below it, it has no effect.
    static func chatBody(_ body: [UInt8], generate: Bool, modelID: String,
                         contextSize: Int) throws(APIError) -> (body: [UInt8], think: Think?) {
        let fields = try RequestFields.parse(body)
        let known: Set<String> = generate ? ["model", "prompt", "system", "stream", "format", "options", "keep_alive", "raw", "think"]
                                          : ["model", "messages", "stream", "format", "options", "keep_alive", "tools", "think"]
        try fields.rejectUnknown(known)
        let think = try Think(fields["think"])
        var out: [(key: String, value: JSONValue)] = []
        // The same `{"type": "function", "function": {...}}` objects as OpenAI's (Ollama's
        // client sends `tools: []` when there are none).
        if let tools = try fields.array("tools"), !tools.isEmpty { out.append(("tools", .array(tools))) }
        if let model = try fields.string("model"), !model.isEmpty, model != modelID, model != modelID + ":latest" {
            throw APIError(status: 404, "model '\(model)' not found; this server has '\(modelID)'", param: "model", code: "model_not_found")
        }
        if generate {
            if try fields.bool("raw") == true { throw APIError.unsupported("raw", "raw prompts are not supported; use /v1/completions") }
            guard let prompt = try fields.string("prompt"), !prompt.isEmpty else {
                throw APIError.invalid("prompt", "prompt must be a non-empty string")
            }
            var messages: [JSONValue] = []
            if let system = try fields.string("system"), !system.isEmpty {
                messages.append(.object([("role", .string("system")), ("content", .string(system))]))
            }
            messages.append(.object([("role", .string("user")), ("content", .string(prompt))]))
            out.append(("messages", .array(messages)))
        } else {
            guard let messages = try fields.array("messages") else { throw APIError.invalid("messages", "messages must be an array") }
            out.append(("messages", .array(try OllamaMessages.openAI(messages))))
        }
        out.append(("stream", .bool(try fields.bool("stream") ?? true)))
        switch fields["format"] {
        case nil: break
        case .string("json")?: out.append(("response_format", .object([("type", .string("json_object"))])))
        case let .object(schema)?:
            out.append(("response_format", .object([("type", .string("json_schema")),
                                                    ("json_schema", .object([("name", .string("format")), ("schema", .object(schema))]))])))
        default: throw APIError.invalid("format", "format must be \"json\" or a JSON schema object")
        }
        if let options = try fields.object("options") {
            for (key, value) in options.members where value != .null {
                if let name = mappedOptions[key] {
                    out.append((name, value))
                } else if key == "num_ctx" {
                    if let n = try options.integer("num_ctx", in: 1...Int(Int32.max)), n > contextSize {
                        throw APIError.unsupported(options.name(key), "num_ctx \(n) is above this server's window of \(contextSize) "
                                                   + "tokens per slot (set with -c at startup)")
                    }
                } else if !ignoredOptions.contains(key) {
                    throw APIError.unsupported(options.name(key), "\(options.name(key)) is not a supported option")
                }
            }
        }
        return (Array(JSONValue.object(out).jsonText.utf8), think)
    }
}
