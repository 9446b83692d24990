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
        if fields["logprobs"] != nil { throw APIError.unsupported("logprobs", "logprobs are not supported by this server yet") }
        for penalty in ["presence_penalty", "frequency_penalty"] {
            if let x = try fields.number(penalty, in: -2...2), x != 0 {
                throw APIError.unsupported(penalty, "\(penalty) is not supported by this server yet (only 0)")
            }
        }
        var sampling = defaults
        if let t = try fields.number("temperature", in: 0...2) { sampling.temperature = t }
        if let k = try fields.integer("top_k", in: 0...1_000_000) { sampling.topK = k }
        if let p = try fields.number("top_p", in: 0...1) {
            guard p > 0 else { throw APIError.invalid("top_p", "top_p must be above 0") }
            sampling.topP = p
        }
        if let p = try fields.number("min_p", in: 0...1) { sampling.minP = p }
        self.sampling = sampling
        seed = try fields.integer("seed", in: Int(Int64.min)...Int(Int64.max)).map { UInt64(bitPattern: Int64($0)) }
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
            func chunk(_ text: String, finish: String?) -> JSONValue {
                .object(identity.header("text_completion") + [("choices", .array([.object([
                    ("text", .string(text)), ("index", .integer(0)), ("logprobs", .null),
                    ("finish_reason", finish.map(JSONValue.string) ?? .null),
                ])]))])
            }
            var stops = StopScanner(completion.stop)
            var text = "", promptTokens = 0, generated = 0, finish = "stop"
            let started = ContinuousClock.now
            do {
                for try await event in model.complete(completion.prompt, maximumTokens: completion.maximumTokens,
                                                      sampling: completion.sampling, seed: completion.seed) {
                    var piece = ""
                    switch event {
                    case let .prefilled(tokens, _): promptTokens = tokens.count
                    case let .token(_, t): generated += 1; piece = t
                    case let .text(t): piece = t
                    case let .finished(_, stop, _): finish = stop == .endOfGeneration ? "stop" : "length"
                    }
                    let safe = stops.feed(piece)
                    text += safe
                    if !safe.isEmpty { body?.write("data: " + chunk(safe, finish: nil).jsonText + "\n\n") }
                    if stops.stopped { finish = "stop"; break }
                }
                let rest = stops.flush()
                text += rest
                if !rest.isEmpty { body?.write("data: " + chunk(rest, finish: nil).jsonText + "\n\n") }
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
                var whole = chunk(text, finish: finish)
                if case let .object(members) = whole { whole = .object(members + [("usage", usage)]) }
                answer(json(200, whole))
            }
        }
    }
}
