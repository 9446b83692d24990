import DesignedModels
import Foundation
import Quanta
import Testing

/// The official `ollama` Python package (installed by `make test`) against `quanta serve`'s
/// Ollama endpoints on the real SmolLM2 model: `/api/chat` and `/api/generate` whole and
/// streamed (NDJSON), `format` with a schema, `tools` and the tool's answer, `/api/tags`,
/// `/api/version`, and four error cases. The client's parse is the check on the wire format; the greedy answers are checked
/// against the Swift API's own for the same prompt. Time cap: about 60 s on a 2-core host (one
/// model load, about 200 generated tokens).
@Suite(.serialized) struct OllamaClientTests {
    @Test func theOllamaClientDrivesTheServer() async throws {
        let server = try ServerProcess([])
        let id = URL(fileURLWithPath: smollm).deletingPathExtension().lastPathComponent
        let result = try run("python3", ["\(repositoryRoot)/Tests/ServerTests/ollama_client.py", server.baseURL, id], timeout: 240)
        #expect(server.terminate() == 0, "\(server.stderr)")
        try #require(result.status == 0, "\(result.stderr)")
        let out = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])

        let model = try await LocalLanguageModel(contentsOf: URL(fileURLWithPath: smollm), configuration: .init(threads: 2))
        let reference = try await LanguageModelSession(model: model, instructions: "You are a helpful assistant.")
            .respond(to: "What is the capital of France?", options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 24))
        let chat = try #require(out["chat"] as? [String: Any])
        #expect(chat["content"] as? String == reference.content)
        #expect(chat["role"] as? String == "assistant" && chat["done"] as? Bool == true)
        #expect(chat["prompt_eval_count"] as? Int == reference.usage.input.totalTokenCount)
        #expect(chat["eval_count"] as? Int == reference.usage.output.totalTokenCount)
        let stream = try #require(out["chat_stream"] as? [String: Any])
        #expect(stream["content"] as? String == reference.content)
        #expect((stream["pieces"] as? Int ?? 0) > 1, "streamed in pieces")
        #expect(stream["done"] as? Bool == true && stream["done_reason"] as? String == chat["done_reason"] as? String)
        let generate = try #require(out["generate"] as? [String: Any])
        #expect(generate["response"] as? String == reference.content)
        #expect(out["generate_stream"] as? String == reference.content)

        let format = try #require(out["format"] as? [String: Any])
        #expect(format["city"] is String && format["population"] is Int, "\(format)")
        #expect(out["format_json"] is [String: Any], "\(out["format_json"] ?? "nothing")")
        // Tools: the Ollama answers equal the OpenAI endpoint's for the same conversations, the
        // one after a tool call included (its call and the tool's output renamed into OpenAI's).
        let tools = try #require(out["tools"] as? [String: Any])
        #expect(tools["content"] as? String == out["tools_openai"] as? String, "\(tools)")
        #expect((tools["content"] as? String)?.isEmpty == false)
        let followup = try #require(out["tool_followup"] as? String)
        #expect(followup == out["tool_followup_openai"] as? String)
        #expect(followup.contains("21"), "the answer uses the tool's output: \(followup)")

        #expect(out["tags"] as? [String] == [id])
        #expect((out["version"] as? String)?.isEmpty == false)
        let errors = try #require(out["errors"] as? [String: Any])
        #expect((errors["model"] as? [String: Any])?["status"] as? Int == 404)
        #expect((errors["num_ctx"] as? [String: Any])?["status"] as? Int == 400)
        #expect((errors["option"] as? [String: Any])?["status"] as? Int == 400)
        #expect((errors["think"] as? [String: Any])?["status"] as? Int == 400)
    }

    /// `think` on the designed thinking model (`ThinkingModel`: `<think>`, twenty words,
    /// `</think>`, three words, end), so the expected texts are known: the think block comes back
    /// in `message.thinking` (streamed as pieces), `think: false` turns thinking off, and
    /// `/api/generate` answers `thinking` beside `response`. Time cap: about 10 s.
    @Test func thinkIsMessageThinking() throws {
        let file = try ThinkingModel.write()
        defer { try? FileManager.default.removeItem(at: file) }
        let server = try ServerProcess(["--temp", "0", "-c", "128"], model: file.path)
        let id = file.deletingPathExtension().lastPathComponent
        let result = try run("python3", ["\(repositoryRoot)/Tests/ServerTests/ollama_client.py", server.baseURL, id, "think"], timeout: 120)
        #expect(server.terminate() == 0, "\(server.stderr)")
        try #require(result.status == 0, "\(result.stderr)")
        let out = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let thoughts = ThinkingModel.text(ThinkingModel.thoughts[...]), answer = ThinkingModel.text(ThinkingModel.answer[...])
        for name in ["on", "high", "absent"] {
            let r = try #require(out[name] as? [String: Any], "\(name)")
            #expect(r["thinking"] as? String == thoughts, "\(name): \(r)")
            #expect(r["content"] as? String == answer, "\(name): \(r)")
            // The words, both markers, the answer and the end.
            #expect(r["eval_count"] as? Int == ThinkingModel.thoughts.count + 2 + ThinkingModel.answer.count + 1, "\(name)")
        }
        // Thinking off: the budget is spent at once, so the engine closes the block the model
        // opens and the answer follows, with no thoughts.
        let off = try #require(out["off"] as? [String: Any])
        #expect(off["thinking"] is NSNull, "\(off)")
        #expect(off["content"] as? String == answer)
        let stream = try #require(out["stream"] as? [String: Any])
        #expect(stream["thinking"] as? String == thoughts && stream["content"] as? String == answer, "\(stream)")
        #expect((stream["thinking_pieces"] as? Int ?? 0) > 1, "thinking streamed in pieces")
        let generate = try #require(out["generate"] as? [String: Any])
        #expect(generate["thinking"] as? String == thoughts && generate["response"] as? String == answer, "\(generate)")
        #expect((out["bad_level"] as? [String: Any])?["status"] as? Int == 400)
    }
}
