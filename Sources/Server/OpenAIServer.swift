// The OpenAI-compatible endpoints over one model: routing, the API key, admission to the slots,
// and each endpoint's answer.
import Foundation
import JSON
import LanguageModelAPI
import LocalModels

/// Serves `model` under the name `modelID` on `slots` executors.
public final class OpenAIServer: HTTPHandler {
    /// Startup choices.
    public struct Settings: Sendable {
        /// The name clients use in `model` (and `/v1/models` lists).
        public var modelID: String
        /// Requests that run at once, each with its own KV cache.
        public var slots: Int = 1
        /// Requests that may wait for a slot; beyond them: 503.
        public var queueLimit: Int = 16
        /// When set, every endpoint but `/health` needs `Authorization: Bearer <key>`.
        public var apiKey: String?
        public init(modelID: String) { self.modelID = modelID }
    }

    let model: LocalLanguageModel
    let settings: Settings
    let pool: SlotPool
    let metrics = ServerMetrics()
    /// Seconds between SSE comments while a streamed request waits or prefills (so a client that
    /// went away is noticed: a suspended connection's disconnect is not).
    let heartbeatSeconds: Double

    public init(model: LocalLanguageModel, settings: Settings, heartbeatSeconds: Double = 1) throws {
        self.model = model
        self.settings = settings
        self.heartbeatSeconds = heartbeatSeconds
        pool = try SlotPool(model: model, slots: settings.slots, queueLimit: settings.queueLimit)
    }

    /// Requests admitted and not finished (running or queued).
    public var inFlight: Int { pool.busy + pool.queueDepth }

    public func handle(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void) {
        let endpoint = request.path
        let answer: @Sendable (HTTPReply) -> Void = { [metrics] r in
            switch r {
            case let .full(status, _, _): metrics.request(endpoint, status: status)
            case .stream: metrics.request(endpoint, status: 200)
            }
            reply(r)
        }
        if let key = settings.apiKey, request.path != "/health", !Self.authorized(request, key: key) {
            return answer(APIError(status: 401, "missing or wrong API key (send Authorization: Bearer <key>)",
                                   type: "authentication_error", code: "invalid_api_key").reply)
        }
        switch (request.method, request.path) {
        case ("GET", "/health"):
            answer(.full(status: 200, headers: [], body: Array(#"{"status":"ok"}"#.utf8)))
        case ("GET", "/v1/models"):
            answer(json(200, modelList()))
        case ("GET", "/metrics"):
            answer(.full(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")],
                         body: Array(metrics.text(pool: pool, contextSize: model.contextSize, batching: model.batching).utf8)))
        case ("POST", "/v1/chat/completions"):
            chat(request, answer)
        case ("POST", "/v1/completions"):
            completion(request, answer)
        case ("POST", "/api/chat"), ("POST", "/api/generate"):
            ollamaChat(request, answer)
        case ("GET", "/api/tags"):
            answer(json(200, ollamaTags()))
        case ("GET", "/api/version"):
            answer(json(200, .object([("version", .string(Self.ollamaVersion))])))
        case (_, "/health"), (_, "/v1/models"), (_, "/metrics"), (_, "/v1/chat/completions"), (_, "/v1/completions"),
             (_, "/api/chat"), (_, "/api/generate"), (_, "/api/tags"), (_, "/api/version"):
            answer(APIError(status: 405, "\(request.method) is not allowed on \(request.path)", code: "method_not_allowed").reply)
        default:
            answer(APIError(status: 404, "no endpoint \(request.method) \(request.path)", code: "not_found").reply)
        }
    }

    private static func authorized(_ request: HTTPRequest, key: String) -> Bool {
        guard let header = request.headers["authorization"], header.hasPrefix("Bearer ") else { return false }
        // Compared in full whatever the first difference, so timing says nothing about the key.
        let given = Array(header.utf8.dropFirst(7)), wanted = Array(key.utf8)
        var difference = given.count ^ wanted.count
        for i in 0..<wanted.count { difference |= Int(wanted[i] ^ (i < given.count ? given[i] : 0)) }
        return difference == 0
    }

    private func modelList() -> JSONValue {
        .object([("object", .string("list")), ("data", .array([.object([
            ("id", .string(settings.modelID)), ("object", .string("model")), ("created", .integer(0)), ("owned_by", .string("quanta")),
        ])]))])
    }

    func json(_ status: Int, _ value: JSONValue) -> HTTPReply {
        .full(status: status, headers: [], body: Array(value.jsonText.utf8))
    }

    /// 404 unless `name` is absent or this server's model.
    func checkModel(_ name: String?) throws(APIError) {
        if let name, !name.isEmpty, name != settings.modelID {
            throw APIError(status: 404, "the model '\(name)' does not exist; this server has '\(settings.modelID)'",
                           param: "model", code: "model_not_found")
        }
    }

    /// An engine error as the client's 400 or the server's 500.
    static func apiError(_ error: any Error) -> APIError {
        switch error {
        case let e as APIError: return e
        case let e as LanguageModelError:
            switch e {
            case .contextSizeExceeded:
                return APIError(status: 400, e.errorDescription ?? "\(e)", param: "messages", code: "context_length_exceeded")
            case .unsupportedGenerationGuide:
                return APIError(status: 400, e.errorDescription ?? "\(e)", param: "response_format", code: "unsupported_schema")
            default:
                return APIError(status: 400, e.errorDescription ?? "\(e)", code: "unsupported_request")
            }
        case let e as InvalidGenerationOptionsError:
            return APIError(status: 400, "\(e)", code: "invalid_value")
        default:
            return APIError(status: 500, "the engine failed: \(error)", type: "server_error", code: "internal_error")
        }
    }

    /// Admits the request or answers 503; runs `work` on a task that the client's disconnect
    /// cancels.
    func admitted(_ request: HTTPRequest, _ answer: @escaping @Sendable (HTTPReply) -> Void,
                  _ work: @escaping @Sendable () async -> Void) {
        guard pool.admit() else {
            return answer(APIError(status: 503, "every slot is busy and the queue is full; retry later",
                                   type: "server_error", code: "queue_full").reply)
        }
        let task = Task { await work() }
        request.abort.onAbort { task.cancel() }
    }

    private func chat(_ request: HTTPRequest, _ answer: @escaping @Sendable (HTTPReply) -> Void) {
        let chat: ChatRequest
        do throws(APIError) {
            chat = try ChatRequest(body: request.body)
            try checkModel(chat.model)
        } catch {
            return answer(error.reply)
        }
        let identity = ResponseIdentity(prefix: "chatcmpl-", model: settings.modelID)
        let heartbeatSeconds = heartbeatSeconds
        runChat(chat, request, answer, reply: { $0.reply },
                openStream: {
                    ChatEventWriter(body: EventStreamBody(), identity: identity, includeUsage: chat.includeUsage,
                                    heartbeatSeconds: heartbeatSeconds)
                },
                whole: { [self] result, _ in json(200, ChatResponses.completion(result, identity)) })
    }
}

extension ContinuousClock.Instant {
    var secondsUntilNow: Double {
        let d = ContinuousClock.now - self
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}
