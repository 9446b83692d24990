import Foundation
import Testing

/// A request goes to the slot whose cache holds the most of its prompt: two conversations on
/// `-np 2` (A, B, B, A), each second turn finds its first turn's whole prompt cached
/// (`cached_tokens`), where handing out the most recently freed slot would have put A's turns on
/// B's cache, and the least recently used one B's second turn on A's. Time cap: about 15 s (one model load, four short
/// answers).
@Suite(.serialized) struct SlotAffinityTests {
    /// A chat request body: `messages` as (role, content) pairs, a short greedy answer.
    static func body(_ messages: [(String, String)]) throws -> String {
        let list = messages.map { ["role": $0.0, "content": $0.1] }
        let object: [String: Any] = ["messages": list, "max_tokens": 12, "temperature": 0]
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// (answer text, prompt tokens, cached tokens) of a whole (not streamed) chat answer.
    static func ask(_ url: String, _ messages: [(String, String)]) throws -> (String, Int, Int) {
        let reply = try curl(url, body: try body(messages))
        #expect(reply.status == 200, "\(reply.body)")
        let json = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
        let text = (((json?["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String) ?? ""
        let usage = json?["usage"] as? [String: Any]
        let cached = (usage?["prompt_tokens_details"] as? [String: Any])?["cached_tokens"] as? Int ?? -1
        return (text, usage?["prompt_tokens"] as? Int ?? -1, cached)
    }

    @Test func eachConversationKeepsItsSlot() throws {
        let server = try ServerProcess(["-np", "2", "-c", "512"])
        defer { #expect(server.terminate() == 0) }
        let chat = server.baseURL + "/v1/chat/completions"
        let a1: [(String, String)] = [("system", "You are a ship's cook who answers in one line."), ("user", "Name three spices.")]
        let b1: [(String, String)] = [("system", "You are a gardener. Be brief."), ("user", "Which flowers like shade?")]
        let (answerA, promptA, _) = try Self.ask(chat, a1)
        let (answerB, promptB, _) = try Self.ask(chat, b1)
        // B's second turn first: the least recently used slot is then A's, the most recently
        // used B's; A's second turn then finds the other slot the most recently used.
        let (_, _, cachedB) = try Self.ask(chat, b1 + [("assistant", answerB), ("user", "And in full sun?")])
        let (_, _, cachedA) = try Self.ask(chat, a1 + [("assistant", answerA), ("user", "And three herbs?")])
        // The first turn's prompt is a prefix of the second's (up to how the answer's first
        // token joins the template's text): all of it but a token or two comes from the cache.
        #expect(cachedA >= promptA - 2, "conversation A's second turn cached \(cachedA) of its first turn's \(promptA) tokens")
        #expect(cachedB >= promptB - 2, "conversation B's second turn cached \(cachedB) of its first turn's \(promptB) tokens")
    }
}
