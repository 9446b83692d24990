// The JSON a chat completion answers with: the whole `chat.completion` object, or the
// `chat.completion.chunk` events of a stream.
import Foundation
import JSON
import LocalModels

/// Names and times shared by one response's objects.
struct ResponseIdentity {
    let id: String
    let created: Int
    let model: String

    init(prefix: String, model: String) {
        id = prefix + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        created = Int(Date().timeIntervalSince1970)
        self.model = model
    }

    func header(_ object: String) -> [(key: String, value: JSONValue)] {
        [("id", .string(id)), ("object", .string(object)), ("created", .integer(created)), ("model", .string(model))]
    }
}

enum ChatResponses {
    /// `usage` with cached prompt tokens and reasoning tokens.
    static func usage(_ a: ChatAnswer) -> JSONValue {
        .object([
            ("prompt_tokens", .integer(a.promptTokens)), ("completion_tokens", .integer(a.completionTokens)),
            ("total_tokens", .integer(a.promptTokens + a.completionTokens)),
            ("prompt_tokens_details", .object([("cached_tokens", .integer(a.cachedTokens))])),
            ("completion_tokens_details", .object([("reasoning_tokens", .integer(a.reasoningTokens))])),
        ])
    }

    static func toolCalls(_ a: ChatAnswer, indexed: Bool) -> JSONValue {
        .array(a.toolCalls.enumerated().map { i, call in
            .object((indexed ? [("index", JSONValue.integer(i))] : []) + [
                ("id", .string(call.id)), ("type", .string("function")),
                ("function", .object([("name", .string(call.name)), ("arguments", .string(call.arguments))])),
            ])
        })
    }

    /// OpenAI's `logprobs` of a choice: `{"content": [{"token", "logprob", "bytes", "top_logprobs":
    /// [{"token", "logprob", "bytes"}]}], "refusal": null}`; `token` is the bytes as UTF-8 text
    /// (a token ending inside a character shows U+FFFD; `bytes` are exact).
    static func logprobs(_ entries: [LocalLanguageModel.TokenLogprob]?) -> JSONValue {
        guard let entries else { return .null }
        func fields(_ a: LocalLanguageModel.TokenLogprob.Alternative) -> [(key: String, value: JSONValue)] {
            [("token", .string(String(decoding: a.bytes, as: UTF8.self))), ("logprob", .number(a.logprob)),
             ("bytes", .array(a.bytes.map { .integer(Int($0)) }))]
        }
        return .object([
            ("content", .array(entries.map { .object(fields($0.chosen) + [("top_logprobs", .array($0.top.map { .object(fields($0)) }))]) })),
            ("refusal", .null),
        ])
    }

    /// The whole `chat.completion`.
    static func completion(_ a: ChatAnswer, _ identity: ResponseIdentity) -> JSONValue {
        var message: [(key: String, value: JSONValue)] = [("role", .string("assistant"))]
        message.append(("content", a.toolCalls.isEmpty ? .string(a.content) : (a.content.isEmpty ? .null : .string(a.content))))
        if !a.reasoning.isEmpty { message.append(("reasoning_content", .string(a.reasoning))) }
        if !a.toolCalls.isEmpty { message.append(("tool_calls", toolCalls(a, indexed: false))) }
        return .object(identity.header("chat.completion") + [
            ("choices", .array([.object([("index", .integer(0)), ("message", .object(message)), ("logprobs", logprobs(a.logprobs)),
                                         ("finish_reason", .string(a.finishReason))])])),
            ("usage", usage(a)),
        ])
    }

    /// One `chat.completion.chunk` with `delta` (and the finish reason on the last one).
    static func chunk(_ identity: ResponseIdentity, delta: [(key: String, value: JSONValue)], finishReason: String? = nil,
                      logprobs entries: [LocalLanguageModel.TokenLogprob]? = nil) -> JSONValue {
        .object(identity.header("chat.completion.chunk") + [
            ("choices", .array([.object([("index", .integer(0)), ("delta", .object(delta)), ("logprobs", logprobs(entries)),
                                         ("finish_reason", finishReason.map(JSONValue.string) ?? .null)])])),
        ])
    }

    /// The usage chunk of `stream_options.include_usage` (no choices).
    static func usageChunk(_ a: ChatAnswer, _ identity: ResponseIdentity) -> JSONValue {
        .object(identity.header("chat.completion.chunk") + [("choices", .array([])), ("usage", usage(a))])
    }
}

/// Writes a chat completion's chunks as server-sent events into a stream body. Until the answer
/// starts it writes a `: waiting` comment every `heartbeatSeconds`: a suspended connection's
/// disconnect goes unseen, so a client that left while its request queued or prefilled is
/// noticed by the next write.
final class ChatEventWriter: ChatStreamWriter {
    let body: EventStreamBody
    let identity: ResponseIdentity
    /// `stream_options.include_usage`: a usage chunk before `[DONE]`.
    let includeUsage: Bool
    private let heartbeat: Task<Void, Never>

    init(body: EventStreamBody, identity: ResponseIdentity, includeUsage: Bool, heartbeatSeconds: Double) {
        self.body = body
        self.identity = identity
        self.includeUsage = includeUsage
        heartbeat = Task {
            while !Task.isCancelled {
                body.write(": waiting\n\n")
                try? await Task.sleep(for: .seconds(heartbeatSeconds))
            }
        }
    }

    func event(_ value: JSONValue) { body.write("data: " + value.jsonText + "\n\n") }

    func started() async {
        heartbeat.cancel()
        event(ChatResponses.chunk(identity, delta: [("role", .string("assistant")), ("content", .string(""))]))
    }
    func content(_ text: String, logprobs: [LocalLanguageModel.TokenLogprob]) async {
        event(ChatResponses.chunk(identity, delta: [("content", .string(text))], logprobs: logprobs.isEmpty ? nil : logprobs))
    }
    func reasoning(_ text: String) async { event(ChatResponses.chunk(identity, delta: [("reasoning_content", .string(text))])) }

    /// The tool calls, the finish reason, usage if asked for, then `[DONE]`.
    func finish(_ a: ChatAnswer, seconds: Double) {
        heartbeat.cancel()
        if !a.toolCalls.isEmpty { event(ChatResponses.chunk(identity, delta: [("tool_calls", ChatResponses.toolCalls(a, indexed: true))])) }
        event(ChatResponses.chunk(identity, delta: [], finishReason: a.finishReason))
        if includeUsage { event(ChatResponses.usageChunk(a, identity)) }
        done()
    }

    /// An error after the stream began: the error object as an event, then `[DONE]`.
    func fail(_ error: APIError) {
        heartbeat.cancel()
        event(error.json)
        done()
    }

    func end() {
        heartbeat.cancel()
        body.finish()
    }

    private func done() {
        body.write("data: [DONE]\n\n")
        body.finish()
    }
}
