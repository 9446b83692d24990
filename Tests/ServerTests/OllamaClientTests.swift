import Foundation
import Quanta
import Testing

/// The official `ollama` Python package (installed by `make test`) against `quanta serve`'s
/// Ollama endpoints on the real SmolLM2 model: `/api/chat` and `/api/generate` whole and
/// streamed (NDJSON), `format` with a schema, `/api/tags`, `/api/version`, and three error
/// cases. The client's parse is the check on the wire format; the greedy answers are checked
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
        #expect(out["tags"] as? [String] == [id])
        #expect((out["version"] as? String)?.isEmpty == false)
        let errors = try #require(out["errors"] as? [String: Any])
        #expect((errors["model"] as? [String: Any])?["status"] as? Int == 404)
        #expect((errors["num_ctx"] as? [String: Any])?["status"] as? Int == 400)
        #expect((errors["option"] as? [String: Any])?["status"] as? Int == 400)
    }
}
