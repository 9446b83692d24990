// Ollama's `/api/chat` and `/api/generate` bodies renamed into the OpenAI chat body that
// `ChatRequest` reads, so both APIs share one set of checks.
import JSON

enum OllamaRequest {
    /// Ollama `options` this server maps, and the OpenAI field each becomes.
    static let mappedOptions: [String: String] = [
        "num_predict": "max_tokens", "temperature": "temperature", "top_k": "top_k", "top_p": "top_p", "min_p": "min_p",
        "seed": "seed", "stop": "stop", "frequency_penalty": "frequency_penalty", "presence_penalty": "presence_penalty",
    ]
    /// Options about how the runtime runs, which Quanta chooses itself: accepted, no effect.
    static let ignoredOptions: Set<String> = ["num_thread", "num_gpu", "num_batch", "main_gpu", "use_mmap", "use_mlock", "numa"]

    /// The OpenAI chat body for an Ollama `/api/chat` (`messages`) or `/api/generate` (`prompt`,
    /// `system`) body (`stream` defaults to true, as Ollama's does). `num_ctx` above `contextSize` is refused (each
    /// slot's window is fixed at startup); at or below it, it has no effect.
    static func chatBody(_ body: [UInt8], generate: Bool, modelID: String, contextSize: Int) throws(APIError) -> [UInt8] {
        let fields = try RequestFields.parse(body)
        let known: Set<String> = generate ? ["model", "prompt", "system", "stream", "format", "options", "keep_alive", "raw"]
                                          : ["model", "messages", "stream", "format", "options", "keep_alive", "tools", "think"]
        try fields.rejectUnknown(known)
        // Ollama's client sends `tools: []` when there are none.
        if let tools = try fields.array("tools"), !tools.isEmpty {
            throw APIError.unsupported("tools", "tools are not supported on /api/chat yet; use /v1/chat/completions")
        }
        if case .bool(true)? = fields["think"] { throw APIError.unsupported("think", "think is not supported on /api/chat yet") }
        var out: [(key: String, value: JSONValue)] = []
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
            out.append(("messages", .array(try messages.enumerated().map { (i, message) throws(APIError) -> JSONValue in
                let m = try RequestFields(message, path: "messages[\(i)]")
                try m.rejectUnknown(["role", "content", "images"])
                if let images = try m.array("images"), !images.isEmpty {
                    throw APIError.unsupported(m.name("images"), "images are not supported by this server")
                }
                return .object(m.members.filter { $0.key != "images" })
            })))
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
        return Array(JSONValue.object(out).jsonText.utf8)
    }
}
