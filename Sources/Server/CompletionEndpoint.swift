// `POST /v1/completions`: raw continuation of a prompt (no chat template), as
// `LocalLanguageModel.complete` runs it, whole or streamed.
import Foundation
import JSON
import LanguageModelAPI
import LocalModels

/// A checked legacy completion request.
struct CompletionRequest {
    var model: String?
    var prompt: String
    var maximumTokens: Int
    var sampling: LocalLanguageModel.SamplingDefaults
    var seed: UInt64?
    var stop: [String]
    var stream: Bool
    var includeUsage: Bool
    /// `logprobs` (0…5): per token its log-probability and that many most likely
    /// alternatives; nil = none.
    var logprobs: Int?

    static let known: Set<String> = [
        "model", "prompt", "max_tokens", "temperature", "top_p", "top_k", "min_p", "seed", "stop", "stream", "stream_options",
        "n", "echo", "logprobs", "presence_penalty", "frequency_penalty", "user",
    ]

    init(body: [UInt8], defaults: LocalLanguageModel.SamplingDefaults) throws(APIError) {
        let fields = try RequestFields.parse(body)
        try fields.rejectUnknown(Self.known)
        model = try fields.string("model")
        switch fields["prompt"] {
        case let .string(s)?: prompt = s
        case let .array(items)? where items.count == 1:
            guard case let .string(s) = items[0] else { fallthrough }
            prompt = s
        default: throw APIError.invalid("prompt", "prompt must be a string (or an array of one string)")
        }
        guard !prompt.isEmpty else { throw APIError.invalid("prompt", "prompt must not be empty") }
        maximumTokens = try fields.integer("max_tokens", in: 1...Int(Int32.max)) ?? 16
        if let n = try fields.integer("n", in: 1...Int.max), n != 1 { throw APIError.unsupported("n", "n must be 1") }
        if try fields.bool("echo") == true { throw APIError.unsupported("echo", "echo is not supported") }
        logprobs = try fields.integer("logprobs", in: 0...5)
        let requested = try RequestSampling(fields)
        sampling = LocalLanguageModel.SamplingDefaults(requested, over: defaults)
        seed = requested.seed
        switch fields["stop"] {
        case nil: stop = []
        case let .string(s)?: stop = s.isEmpty ? [] : [s]
        case let .array(items)?:
            stop = try items.map { (item: JSONValue) throws(APIError) -> String in
                guard case let .string(s) = item else { throw APIError.invalid("stop", "stop must be a string or an array of strings") }
                return s
            }.filter { !$0.isEmpty }
        default: throw APIError.invalid("stop", "stop must be a string or an array of strings")
        }
        stream = try fields.bool("stream") ?? false
        includeUsage = try fields.object("stream_options")?.bool("include_usage") ?? false
    }
}

extension OpenAIServer {
    func completion(_ request: HTTPRequest, _ answer: @escaping @Sendable (HTTPReply) -> Void) {
        let completion: CompletionRequest
        do throws(APIError) {
            completion = try CompletionRequest(body: request.body, defaults: model.configuration.sampling)
            try checkModel(completion.model)
        } catch {
            return answer(error.reply)
        }
        admitted(request, answer) { [self] in
            var slot: SlotPool.Slot?
            defer { if let slot { pool.release(slot) } else { pool.withdraw() } }
            let identity = ResponseIdentity(prefix: "cmpl-", model: settings.modelID)
            var body: EventStreamBody?
            if completion.stream {
                body = EventStreamBody()
                answer(.stream(body!))
                body!.write(": waiting\n\n")
            }
            slot = await pool.acquire()
            guard slot != nil, !Task.isCancelled else { body?.finish(); return }
            let recorded = TokenLogprobLog()
            let logprobs = completion.logprobs.map { top in LocalLanguageModel.LogprobsRequest(top: top) { recorded.append($0) } }
            // Tokens' entries not yet sent with text; bytes of answer tokens before them.
            var pending: [LocalLanguageModel.TokenLogprob] = [], offset = 0
            var all: [LocalLanguageModel.TokenLogprob]? = logprobs == nil ? nil : []
            func chunk(_ text: String, finish: String?, logprobs entries: [LocalLanguageModel.TokenLogprob]? = nil) -> JSONValue {
                .object(identity.header("text_completion") + [("choices", .array([.object([
                    ("text", .string(text)), ("index", .integer(0)), ("logprobs", Self.legacyLogprobs(entries, offset: &offset)),
                    ("finish_reason", finish.map(JSONValue.string) ?? .null),
                ])]))])
            }
            var stops = StopScanner(completion.stop)
            var text = "", promptTokens = 0, generated = 0, finish = "stop"
            let started = ContinuousClock.now
            do {
                for try await event in model.complete(completion.prompt, maximumTokens: completion.maximumTokens,
                                                      sampling: completion.sampling, seed: completion.seed, logprobs: logprobs) {
                    var piece = ""
                    switch event {
                    case let .prefilled(tokens, _): promptTokens = tokens.count
                    case let .token(_, t):
                        // The n-th token event's entry was recorded before it was yielded.
                        if logprobs != nil, let entry = recorded.entry(generated), !entry.chosen.bytes.isEmpty {
                            all?.append(entry)
                            pending.append(entry)
                        }
                        generated += 1
                        piece = t
                    case let .text(t): piece = t
                    case let .finished(_, stop, _): finish = stop == .endOfGeneration ? "stop" : "length"
                    }
                    let safe = stops.feed(piece)
                    text += safe
                    if !safe.isEmpty, let body {
                        body.write("data: " + chunk(safe, finish: nil, logprobs: logprobs == nil ? nil : pending).jsonText + "\n\n")
                        pending.removeAll()
                    }
                    if stops.stopped { finish = "stop"; break }
                }
                let rest = stops.flush()
                text += rest
                if !rest.isEmpty, let body {
                    body.write("data: " + chunk(rest, finish: nil, logprobs: logprobs == nil ? nil : pending).jsonText + "\n\n")
                }
            } catch {
                if error is CancellationError { body?.finish(); return }
                let failure = Self.apiError(error)
                if let body {
                    body.write("data: " + failure.json.jsonText + "\n\ndata: [DONE]\n\n")
                    body.finish()
                } else {
                    answer(failure.reply)
                }
                return
            }
            metrics.generation(prompt: promptTokens, completion: generated, seconds: started.secondsUntilNow)
            let usage = JSONValue.object([("prompt_tokens", .integer(promptTokens)), ("completion_tokens", .integer(generated)),
                                          ("total_tokens", .integer(promptTokens + generated))])
            if let body {
                body.write("data: " + chunk("", finish: finish).jsonText + "\n\n")
                if completion.includeUsage {
                    body.write("data: " + JSONValue.object(identity.header("text_completion") + [("choices", .array([])), ("usage", usage)]).jsonText + "\n\n")
                }
                body.write("data: [DONE]\n\n")
                body.finish()
            } else {
                var whole = chunk(text, finish: finish, logprobs: all)
                if case let .object(members) = whole { whole = .object(members + [("usage", usage)]) }
                answer(json(200, whole))
            }
        }
    }

    /// The legacy completion `logprobs`: `{"tokens", "token_logprobs", "top_logprobs" (token →
    /// logprob), "text_offset"}`, offsets in UTF-8 bytes from the answer's start (`offset` is the
    /// running count, advanced past these tokens); nil entries = `null`.
    static func legacyLogprobs(_ entries: [LocalLanguageModel.TokenLogprob]?, offset: inout Int) -> JSONValue {
        guard let entries else { return .null }
        var offsets: [JSONValue] = []
        for entry in entries {
            offsets.append(.integer(offset))
            offset += entry.chosen.bytes.count
        }
        func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
        return .object([
            ("tokens", .array(entries.map { .string(text($0.chosen.bytes)) })),
            ("token_logprobs", .array(entries.map { .number($0.chosen.logprob) })),
            ("top_logprobs", .array(entries.map { entry in
                var seen = Set<String>()
                return .object(entry.top.compactMap { a -> (key: String, value: JSONValue)? in
                    seen.insert(text(a.bytes)).inserted ? (text(a.bytes), .number(a.logprob)) : nil
                })
            })),
            ("text_offset", .array(offsets)),
        ])
    }
}
