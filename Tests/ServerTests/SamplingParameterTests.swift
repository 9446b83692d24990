import Foundation
import Quanta
import Testing

/// `stop`, `seed`, `top_k` and `max_tokens` as the answers show them, on one server with curl:
/// a stop sequence cuts the greedy answer just before it (whole and streamed); the same seed
/// gives the same sampled answer; top-k 1 at temperature 1 is the greedy answer. Top-k, top-p and
/// min-p together, and the frequency and presence penalties, answer what the Swift API's
/// `complete` answers with the same settings, and change the chat answer. Time cap: about 30 s
/// (two model loads, about 600 tokens).
@Suite(.serialized) struct SamplingParameterTests {
    func chat(_ server: ServerProcess, _ extra: String, question: String = "What is the capital of France?") throws
        -> (content: String, finish: String) {
        let body = #"{"messages":[{"role":"user","content":"\#(question)"}],"max_tokens":32,"# + extra + "}"
        let r = try curl(server.baseURL + "/v1/chat/completions", body: body)
        try #require(r.status == 200, "\(r.body)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.body.utf8)) as? [String: Any])
        let choice = try #require((object["choices"] as? [[String: Any]])?.first)
        return ((choice["message"] as? [String: Any])?["content"] as? String ?? "", choice["finish_reason"] as? String ?? "")
    }

    /// The content deltas of a streamed answer, joined.
    func streamed(_ server: ServerProcess, _ extra: String) throws -> String {
        let body = #"{"messages":[{"role":"user","content":"What is the capital of France?"}],"max_tokens":32,"stream":true,"# + extra + "}"
        let r = try curl(server.baseURL + "/v1/chat/completions", body: body)
        var text = ""
        for line in r.body.split(separator: "\n") where line.hasPrefix("data: {") {
            let chunk = try JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any]
            let delta = ((chunk?["choices"] as? [[String: Any]])?.first?["delta"] as? [String: Any])
            text += delta?["content"] as? String ?? ""
        }
        return text
    }

    @Test func stopSeedAndTopKShapeTheAnswer() throws {
        let server = try ServerProcess([])
        defer { #expect(server.terminate() == 0) }
        let greedy = try chat(server, #""temperature":0"#)
        let word = "Paris"
        let cut = try #require(greedy.content.range(of: word), "\(greedy.content)")
        let before = String(greedy.content[..<cut.lowerBound])
        let stopped = try chat(server, #""temperature":0,"stop":["nowhere","\#(word)"]"#)
        #expect(stopped.content == before)
        #expect(stopped.finish == "stop")
        #expect(try streamed(server, #""temperature":0,"stop":"\#(word)""#) == before)

        let a = try chat(server, #""temperature":1,"seed":42"#), b = try chat(server, #""temperature":1,"seed":42"#)
        #expect(a.content == b.content)
        let c = try chat(server, #""temperature":1,"seed":4242"#)
        #expect(c.content != a.content, "two seeds, one answer: \(a.content)")
        #expect(try chat(server, #""temperature":1,"top_k":1,"seed":7"#).content == greedy.content)

        let short = try chat(server, #""temperature":0,"max_tokens":3"#)
        #expect(short.finish == "length")
        #expect(greedy.content.hasPrefix(short.content) && short.content.count < greedy.content.count)
    }

    /// A `/v1/completions` answer's text.
    func completion(_ server: ServerProcess, _ prompt: String, _ extra: String) throws -> String {
        let body = #"{"prompt":"\#(prompt)","max_tokens":32,"# + extra + "}"
        let r = try curl(server.baseURL + "/v1/completions", body: body)
        try #require(r.status == 200, "\(r.body)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.body.utf8)) as? [String: Any])
        return try #require((object["choices"] as? [[String: Any]])?.first?["text"] as? String)
    }

    /// What the Swift API's raw completion answers with `settings` and `seed`.
    func swiftCompletion(_ model: LocalLanguageModel, _ prompt: String, _ settings: LocalLanguageModel.SamplingDefaults,
                         seed: UInt64?) async throws -> String {
        var text = ""
        for try await event in model.complete(prompt, maximumTokens: 32, sampling: settings, seed: seed) {
            if case let .token(_, piece) = event { text += piece }
            if case let .text(piece) = event { text += piece }
        }
        return text
    }

    @Test func filtersTogetherAndPenaltiesAnswerAsTheSwiftAPI() async throws {
        let server = try ServerProcess([])
        defer { #expect(server.terminate() == 0) }
        let model = try await LocalLanguageModel(contentsOf: URL(fileURLWithPath: smollm), configuration: .init(threads: 2))
        let prompt = "Colours: red, green, blue, red, green, blue, red,"

        var penalised = LocalLanguageModel.SamplingDefaults(temperature: 0)
        penalised.frequencyPenalty = 1.5
        penalised.presencePenalty = 0.5
        let plain = try completion(server, prompt, #""temperature":0"#)
        let served = try completion(server, prompt, #""temperature":0,"frequency_penalty":1.5,"presence_penalty":0.5"#)
        #expect(served == (try await swiftCompletion(model, prompt, penalised, seed: nil)))
        #expect(served != plain, "the penalties changed nothing: \(plain.debugDescription)")

        var filtered = LocalLanguageModel.SamplingDefaults(temperature: 1, topK: 20, topP: 0.8, minP: 0.1)
        filtered.frequencyPenalty = 0.3
        let sampled = try completion(server, prompt, #""temperature":1,"top_k":20,"top_p":0.8,"min_p":0.1,"frequency_penalty":0.3,"seed":9"#)
        #expect(sampled == (try await swiftCompletion(model, prompt, filtered, seed: 9)))

        // The chat endpoint reads the same fields: the penalties change its greedy answer, and
        // all three filters together are accepted and seeded.
        let days = "List the days of the week."
        let greedy = try chat(server, #""temperature":0"#, question: days).content
        #expect(try chat(server, #""temperature":0,"frequency_penalty":2,"presence_penalty":2"#, question: days).content != greedy)
        let together = #""temperature":1,"top_k":20,"top_p":0.8,"min_p":0.1,"seed":5"#
        #expect(try chat(server, together).content == chat(server, together).content)
    }
}
