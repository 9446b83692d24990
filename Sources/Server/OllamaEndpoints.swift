// Ollama's API beside OpenAI's, so Ollama clients work too: `/api/chat`, `/api/generate`,
// `/api/tags`, `/api/version`. A chat or generate body is renamed into the OpenAI chat body
// (`ChatRequest` checks it, as for `/v1/chat/completions`) and runs the same way; the answer is
// Ollama's: newline-delimited JSON objects while streaming (Ollama's default), one object with
// `"stream": false`, and `{"error": "..."}` on failure.
import Foundation
import JSON
import LocalModels

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

/// Writes an Ollama answer as newline-delimited JSON: one line per piece of text, then the last
/// line with `done: true`, the stop reason and the counts.
final class OllamaLineWriter: ChatAnswerSink {
    let body: EventStreamBody
    let model: String
    /// `message` (`/api/chat`) or `response` (`/api/generate`).
    let generate: Bool

    init(body: EventStreamBody, model: String, generate: Bool) {
        self.body = body
        self.model = model
        self.generate = generate
    }

    func line(_ value: JSONValue) { body.write(value.jsonText + "\n") }

    func started() async {}
    func content(_ text: String, logprobs: [LocalLanguageModel.TokenLogprob]) async {
        line(OllamaResponses.piece(model: model, text: text, generate: generate))
    }
    func reasoning(_ text: String) async {}

    func finish(_ a: ChatAnswer, seconds: Double) {
        line(OllamaResponses.final(model: model, answer: a, generate: generate, content: "", seconds: seconds))
        body.finish()
    }

    func fail(_ error: APIError) {
        line(.object([("error", .string(error.message))]))
        body.finish()
    }
}

enum OllamaResponses {
    static func now() -> String { ISO8601DateFormatter().string(from: Date()) }

    static func piece(model: String, text: String, generate: Bool) -> JSONValue {
        .object([("model", .string(model)), ("created_at", .string(now())), answerText(text, generate: generate), ("done", .bool(false))])
    }

    static func answerText(_ text: String, generate: Bool) -> (key: String, value: JSONValue) {
        generate ? ("response", .string(text)) : ("message", .object([("role", .string("assistant")), ("content", .string(text))]))
    }

    /// The `done: true` object: the whole answer's text when not streamed (`content`), Ollama's
    /// counts, and durations in nanoseconds (prefill is not timed apart: `eval_duration` is the whole run).
    static func final(model: String, answer a: ChatAnswer, generate: Bool, content: String, seconds: Double) -> JSONValue {
        let nanoseconds = Int(seconds * 1e9)
        return .object([
            ("model", .string(model)), ("created_at", .string(now())), answerText(content, generate: generate), ("done", .bool(true)),
            ("done_reason", .string(a.finishReason == "length" ? "length" : "stop")),
            ("total_duration", .integer(nanoseconds)), ("prompt_eval_count", .integer(a.promptTokens)),
            ("eval_count", .integer(a.completionTokens)), ("eval_duration", .integer(nanoseconds)),
        ])
    }
}

extension OpenAIServer {
    /// The version `/api/version` reports (clients only show it).
    static let ollamaVersion = "0.0.0-quanta"

    /// `/api/tags`: the one model.
    func ollamaTags() -> JSONValue {
        .object([("models", .array([.object([
            ("name", .string(settings.modelID)), ("model", .string(settings.modelID)),
            ("details", .object([("format", .string("gguf"))])),
        ])]))])
    }

    /// Ollama's error object for a failure: `{"error": message}` with its status.
    func ollamaError(_ error: APIError) -> HTTPReply {
        json(error.status, .object([("error", .string(error.message))]))
    }

    func ollamaChat(_ request: HTTPRequest, _ answer: @escaping @Sendable (HTTPReply) -> Void) {
        let generate = request.path == "/api/generate"
        let chat: ChatRequest
        do throws(APIError) {
            let body = try OllamaRequest.chatBody(request.body, generate: generate, modelID: settings.modelID,
                                                       contextSize: model.contextSize)
            chat = try ChatRequest(body: body, defaults: model.configuration.sampling)
        } catch {
            return answer(ollamaError(error))
        }
        admitted(request, answer) { [self] in
            var slot: SlotPool.Slot?
            defer { if let slot { pool.release(slot) } else { pool.withdraw() } }
            if let count = try? await model.tokenCount(for: chat.transcript), count >= model.contextSize {
                return answer(ollamaError(APIError(status: 400, "the prompt is \(count) tokens; the context window is \(model.contextSize)")))
            }
            var writer: OllamaLineWriter?
            if chat.stream {
                let body = EventStreamBody(contentType: "application/x-ndjson")
                writer = OllamaLineWriter(body: body, model: settings.modelID, generate: generate)
                answer(.stream(body))
            }
            slot = await pool.acquire()
            guard let slot, !Task.isCancelled else {
                metrics.cancelled()
                writer?.body.finish()
                return
            }
            let started = ContinuousClock.now
            do {
                let result = try await ChatRun.run(chat, model: model, executor: slot.executor, sink: writer)
                slot.cachedTokens.store(result.promptTokens + result.completionTokens, ordering: .relaxed)
                let seconds = started.secondsUntilNow
                metrics.generation(prompt: result.promptTokens, completion: result.completionTokens, seconds: seconds)
                if result.finishReason == "cancelled" {
                    metrics.cancelled()
                    writer?.body.finish()
                } else if let writer {
                    writer.finish(result, seconds: seconds)
                } else {
                    answer(json(200, OllamaResponses.final(model: settings.modelID, answer: result, generate: generate,
                                                           content: result.content, seconds: seconds)))
                }
            } catch {
                if error is CancellationError { writer?.body.finish(); return }
                let failure = Self.apiError(error)
                if let writer { writer.fail(failure) } else { answer(ollamaError(failure)) }
            }
        }
    }
}
