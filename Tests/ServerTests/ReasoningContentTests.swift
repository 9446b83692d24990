import DesignedModels
import Foundation
import Testing

/// A thinking model's think block comes back as `reasoning_content`, apart from `content`, with
/// its tokens in `usage.completion_tokens_details.reasoning_tokens`, whole and streamed. The
/// model is designed (`ThinkingModel`: `<think>`, twenty words, `</think>`, three words, end),
/// so the expected texts and counts are known. Time cap: about 5 s.
@Suite(.serialized) struct ReasoningContentTests {
    @Test func theThinkBlockIsReasoningContent() throws {
        let file = try ThinkingModel.write()
        defer { try? FileManager.default.removeItem(at: file) }
        let server = try ServerProcess(["--temp", "0", "-c", "128"], model: file.path)
        defer { #expect(server.terminate() == 0) }
        let thoughts = ThinkingModel.text(ThinkingModel.thoughts[...]), answer = ThinkingModel.text(ThinkingModel.answer[...])
        let chat = server.baseURL + "/v1/chat/completions"

        let r = try curl(chat, body: #"{"messages":[{"role":"user","content":"hello"}],"max_tokens":100}"#)
        try #require(r.status == 200, "\(r.body)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.body.utf8)) as? [String: Any])
        let message = try #require((object["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])
        #expect(message["content"] as? String == answer)
        #expect(message["reasoning_content"] as? String == thoughts)
        let usage = try #require(object["usage"] as? [String: Any])
        let reasoningTokens = ThinkingModel.thoughts.count + 2   // the words and both markers
        #expect((usage["completion_tokens_details"] as? [String: Any])?["reasoning_tokens"] as? Int == reasoningTokens)
        #expect(usage["completion_tokens"] as? Int == reasoningTokens + ThinkingModel.answer.count + 1)

        let s = try curl(chat, body: #"{"messages":[{"role":"user","content":"hello"}],"max_tokens":100,"stream":true}"#)
        var reasoning = "", content = ""
        for line in s.body.split(separator: "\n") where line.hasPrefix("data: {") {
            let chunk = try JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any]
            let delta = (chunk?["choices"] as? [[String: Any]])?.first?["delta"] as? [String: Any]
            reasoning += delta?["reasoning_content"] as? String ?? ""
            content += delta?["content"] as? String ?? ""
        }
        #expect(reasoning == thoughts)
        #expect(content == answer)
    }
}
