// Ollama's API beside OpenAI's, so Ollama clients work too: `/api/chat`, `/api/generate`,
// `/api/tags`, `/api/version`. A chat or generate body is renamed into the OpenAI chat body
// (`ChatRequest` checks it, as for `/v1/chat/completions`) and runs the same way; the answer is
// Ollama's: newline-delimited JSON objects while streaming (Ollama's default), one object with
// `"stream": false`, and `{"error": "..."}` on failure.
import Foundation
import JSON
import LanguageModelAPI
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
        line(OllamaResponses.piece(model: model, generate: generate, text: text))
    }
    func reasoning(_ text: String) async {
        line(OllamaResponses.piece(model: model, generate: generate, thinking: text))
    }

    /// The tool calls (one line, as Ollama sends them before its last), then the last line.
    func finish(_ a: ChatAnswer, seconds: Double) {
        if !a.toolCalls.isEmpty && !generate {
            line(OllamaResponses.piece(model: model, generate: false, toolCalls: OllamaResponses.toolCalls(a)))
        }
        line(OllamaResponses.final(model: model, answer: a, generate: generate, whole: false, seconds: seconds))
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

    /// One streamed line (`done: false`): a piece of answer text, of thinking, or the tool calls.
    static func piece(model: String, generate: Bool, text: String = "", thinking: String? = nil,
                      toolCalls: JSONValue? = nil) -> JSONValue {
        let head: [(key: String, value: JSONValue)] = [("model", .string(model)), ("created_at", .string(now()))]
        return .object(head + answer(generate: generate, text: text, thinking: thinking, toolCalls: toolCalls) + [("done", .bool(false))])
    }

    /// `message: {role, content, thinking?, tool_calls?}` (`/api/chat`) or `response` and
    /// `thinking?` (`/api/generate`).
    static func answer(generate: Bool, text: String, thinking: String?, toolCalls: JSONValue?) -> [(key: String, value: JSONValue)] {
        let thought: [(key: String, value: JSONValue)] = thinking.map { [("thinking", .string($0))] } ?? []
        if generate { return [("response", .string(text))] + thought }
        let calls: [(key: String, value: JSONValue)] = toolCalls.map { [("tool_calls", $0)] } ?? []
        return [("message", .object([("role", .string("assistant")), ("content", .string(text))] + thought + calls))]
    }

    /// Ollama's `tool_calls`: `[{"function": {"name", "arguments": {...}}}]`, the arguments an
    /// object (the model's JSON text parsed; text that is not an object stays a string).
    static func toolCalls(_ a: ChatAnswer) -> JSONValue {
        .array(a.toolCalls.map { call in
            let arguments = (try? JSONValue(parsing: call.arguments)).flatMap { $0.isObject ? $0 : nil } ?? .string(call.arguments)
            return .object([("function", .object([("name", .string(call.name)), ("arguments", arguments)]))])
        })
    }

    /// The `done: true` object: with `whole`, the answer's text, thinking and tool calls (a
    /// request that did not stream); Ollama's counts, and durations in nanoseconds (prefill is
    /// not timed apart: `eval_duration` is the whole run).
    static func final(model: String, answer a: ChatAnswer, generate: Bool, whole: Bool, seconds: Double) -> JSONValue {
        let nanoseconds = Int(seconds * 1e9)
        let body = whole ? answer(generate: generate, text: a.content, thinking: a.reasoning.isEmpty ? nil : a.reasoning,
                                  toolCalls: a.toolCalls.isEmpty || generate ? nil : toolCalls(a))
                         : answer(generate: generate, text: "", thinking: nil, toolCalls: nil)
        let head: [(key: String, value: JSONValue)] = [("model", .string(model)), ("created_at", .string(now()))]
        return .object(head + body + [
            ("done", .bool(true)),
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
        var chat: ChatRequest
        do throws(APIError) {
            let (body, think) = try OllamaRequest.chatBody(request.body, generate: generate, modelID: settings.modelID,
                                                           contextSize: model.contextSize)
            chat = try ChatRequest(body: body)
            // A model without a think block answers `think: false` as it is; asked to think, it is
            // Ollama's 400.
            if let think, model.capabilities.contains(.reasoning) {
                chat.reasoningLevel = think.reasoningLevel
            } else if let think, think != .off {
                throw APIError.invalid("think", "'\(settings.modelID)' does not support thinking")
            }
        } catch {
            return answer(ollamaError(error))
        }
        let modelID = settings.modelID
        runChat(chat, request, answer, reply: { [self] in ollamaError($0) },
                openStream: { OllamaLineWriter(body: EventStreamBody(contentType: "application/x-ndjson"), model: modelID, generate: generate) },
                whole: { [self] result, seconds in
                    json(200, OllamaResponses.final(model: modelID, answer: result, generate: generate, whole: true, seconds: seconds))
                })
    }
}
