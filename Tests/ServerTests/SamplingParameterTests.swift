import Foundation
import Testing

/// `stop`, `seed`, `top_k` and `max_tokens` as the answers show them, on one server with curl:
/// a stop sequence cuts the greedy answer just before it (whole and streamed); the same seed
/// gives the same sampled answer; top-k 1 at temperature 1 is the greedy answer. Time cap: about
/// 15 s (one model load, about 250 tokens).
@Suite(.serialized) struct SamplingParameterTests {
    func chat(_ server: ServerProcess, _ extra: String) throws -> (content: String, finish: String) {
        let body = #"{"messages":[{"role":"user","content":"What is the capital of France?"}],"max_tokens":32,"# + extra + "}"
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
}
