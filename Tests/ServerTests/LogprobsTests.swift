import Foundation
import Testing
@testable import LocalModels
import Quanta

/// Log-probabilities of greedy answers against a direct forward pass over the same prompt: the
/// logits of each step log-softmaxed in double, the argmax token appended. Chat (`logprobs`,
/// `top_logprobs`; whole and streamed) and legacy completions (`logprobs: N`): each answer
/// token's bytes and log-probability, and its most likely alternatives, must be the reference's.
/// Time cap: about 20 s (three model loads, about 50 tokens).
@Suite(.serialized) struct LogprobsTests {
    static let question = "Name three colours."
    static let prompt = "Colours: red, green,"

    /// Per greedy step, the most likely tokens' (bytes, logprob), most likely first.
    static func reference(_ model: LocalLanguageModel, prompt: [Int32], steps: Int, top: Int) throws -> [[([Int], Double)]] {
        let sequence = TokenSequence(network: model.loaded.network, contextSize: 512, threads: 2)
        var logits = try #require(try sequence.append(prompt, wantLogits: true))
        var out: [[([Int], Double)]] = []
        for _ in 0..<steps {
            let maximum = Double(logits.max()!)
            let logSum = log(logits.reduce(0.0) { $0 + exp(Double($1) - maximum) }) + maximum
            let order = logits.indices.sorted { logits[$0] > logits[$1] || (logits[$0] == logits[$1] && $0 < $1) }
            out.append(order.prefix(max(1, top)).map {
                (model.loaded.tokenizer.pieceBytes(Int32($0), renderSpecial: false).map(Int.init), Double(logits[$0]) - logSum)
            })
            logits = try #require(try sequence.appendOne(Int32(order[0]), wantLogits: true))
        }
        return out
    }

    /// (bytes, logprob) of a chat entry or alternative.
    func pair(_ entry: [String: Any]) -> ([Int], Double) {
        (entry["bytes"] as? [Int] ?? [], entry["logprob"] as? Double ?? 1)
    }

    func close(_ a: ([Int], Double), _ b: ([Int], Double)) -> Bool { a.0 == b.0 && abs(a.1 - b.1) < 1e-9 }

    func chatBody(stream: Bool) -> String {
        #"{"messages":[{"role":"user","content":"\#(Self.question)"}],"max_tokens":12,"temperature":0,"#
            + #""logprobs":true,"top_logprobs":3,"stream":\#(stream)}"#
    }

    @Test func logprobsAreTheModelsOwn() async throws {
        let server = try ServerProcess([])
        defer { #expect(server.terminate() == 0) }
        let model = try await LocalLanguageModel(contentsOf: URL(fileURLWithPath: smollm), configuration: .init(threads: 2))

        // Chat, whole.
        let r = try curl(server.baseURL + "/v1/chat/completions", body: chatBody(stream: false))
        try #require(r.status == 200, "\(r.body)")
        let object = try JSONSerialization.jsonObject(with: Data(r.body.utf8)) as? [String: Any]
        let choice = try #require((object?["choices"] as? [[String: Any]])?.first)
        let entries = try #require((choice["logprobs"] as? [String: Any])?["content"] as? [[String: Any]])
        let text = try #require((choice["message"] as? [String: Any])?["content"] as? String)
        try #require(!entries.isEmpty)
        let rendered = try model.loaded.render(Transcript(entries: [.prompt(.init(segments: [.text(.init(content: Self.question))]))]))
        let chatReference = try Self.reference(model, prompt: rendered.tokens, steps: entries.count, top: 3)
        var answer: [UInt8] = []
        for (step, (entry, expected)) in zip(entries, chatReference).enumerated() {
            #expect(close(pair(entry), expected[0]), "step \(step): \(pair(entry)) vs \(expected[0])")
            #expect(entry["token"] as? String == String(decoding: expected[0].0.map(UInt8.init), as: UTF8.self))
            let top = (entry["top_logprobs"] as? [[String: Any]] ?? []).map(pair)
            #expect(top.count == 3 && zip(top, expected).allSatisfy(close), "step \(step): \(top) vs \(expected)")
            answer += expected[0].0.map(UInt8.init)
        }
        #expect(String(decoding: answer, as: UTF8.self) == text)

        // Chat, streamed, on a fresh server (an empty cache, as the reference): the chunks'
        // entries, in order, are the reference's too.
        let fresh = try ServerProcess([])
        defer { #expect(fresh.terminate() == 0) }
        let streamed = try curl(fresh.baseURL + "/v1/chat/completions", body: chatBody(stream: true))
        var chunks: [[String: Any]] = []
        for line in streamed.body.split(separator: "\n") where line.hasPrefix("data: {") {
            let chunk = try JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any]
            let logprobs = (chunk?["choices"] as? [[String: Any]])?.first?["logprobs"] as? [String: Any]
            chunks += logprobs?["content"] as? [[String: Any]] ?? []
        }
        #expect(chunks.count == entries.count && zip(chunks.map(pair), chatReference.map { $0[0] }).allSatisfy(close))

        // Legacy completions: tokens, token_logprobs, top_logprobs (token → logprob), text_offset.
        let c = try curl(server.baseURL + "/v1/completions",
                         body: #"{"prompt":"\#(Self.prompt)","max_tokens":8,"temperature":0,"logprobs":2}"#)
        try #require(c.status == 200, "\(c.body)")
        let completion = try JSONSerialization.jsonObject(with: Data(c.body.utf8)) as? [String: Any]
        let legacy = try #require((completion?["choices"] as? [[String: Any]])?.first?["logprobs"] as? [String: Any])
        let tokens = try #require(legacy["tokens"] as? [String]), values = try #require(legacy["token_logprobs"] as? [Double])
        let tops = try #require(legacy["top_logprobs"] as? [[String: Double]]), offsets = try #require(legacy["text_offset"] as? [Int])
        try #require(!tokens.isEmpty && values.count == tokens.count && tops.count == tokens.count && offsets.count == tokens.count)
        let promptTokens = model.loaded.tokenizer.encode(Self.prompt, addSpecial: true, parseSpecial: true)
        let completionReference = try Self.reference(model, prompt: promptTokens, steps: tokens.count, top: 2)
        var offset = 0
        for (step, expected) in completionReference.enumerated() {
            let string = { (bytes: [Int]) in String(decoding: bytes.map(UInt8.init), as: UTF8.self) }
            #expect(tokens[step] == string(expected[0].0) && abs(values[step] - expected[0].1) < 1e-9, "step \(step)")
            #expect(offsets[step] == offset)
            offset += expected[0].0.count
            for alternative in expected { #expect(abs((tops[step][string(alternative.0)] ?? 1) - alternative.1) < 1e-9, "step \(step)") }
        }
    }
}
