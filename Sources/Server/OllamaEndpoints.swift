// Ollama's API beside OpenAI's, so Ollama clients work too: `/api/chat`, `/api/generate`,
// `/api/tags`, `/api/version`. A chat or generate body is renamed into the OpenAI chat body
// (`ChatRequest` checks it, as for `/v1/chat/completions`) and runs the same way; the answer is
// Ollama's: newline-delimited JSON objects while streaming (Ollama's default), one object with
// `"stream": false`, and `{"error": "..."}` on failure.
import Foundation
import JSON
import LocalModels

/// Writes an Ollama answer as newline-delimited JSON: one line per piece of text, then the last
/// line with `done: true`, the stop reason and the counts.
final class OllamaLineWriter: ChatStreamWriter {
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

    func end() { body.finish() }
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
            chat = try ChatRequest(body: body)
        } catch {
            return answer(ollamaError(error))
        }
        let modelID = settings.modelID
        runChat(chat, request, answer, reply: { [self] in ollamaError($0) },
                openStream: { OllamaLineWriter(body: EventStreamBody(contentType: "application/x-ndjson"), model: modelID, generate: generate) },
                whole: { [self] result, seconds in
                    json(200, OllamaResponses.final(model: modelID, answer: result, generate: generate, content: result.content, seconds: seconds))
                })
    }
}
