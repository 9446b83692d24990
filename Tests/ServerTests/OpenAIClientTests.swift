import Foundation
import Quanta
import Testing

/// The official `openai` Python package (installed by `make test`) against `quanta serve` on the
/// real SmolLM2 model: chat whole and streamed, a required tool call and the tool's answer,
/// `json_schema` and `json_object`, completions, the model list and two error cases. The
/// client's parse is the check on the wire format; the greedy answers are checked against the
/// Swift API's own for the same prompt. Time cap: about 60 s on a 2-core host (one model load,
/// about 300 generated tokens).
@Suite(.serialized) struct OpenAIClientTests {
    @Test func theOpenAIClientDrivesTheServer() async throws {
        let server = try ServerProcess(["--api-key", "sk-test", "--temp", "0"])
        let result = try run("python3", ["\(repositoryRoot)/Tests/ServerTests/openai_client.py", server.baseURL + "/v1", "sk-test"],
                             timeout: 240)
        #expect(server.terminate() == 0, "\(server.stderr)")
        try #require(result.status == 0, "\(result.stderr)")
        let out = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])

        // The reference: the same conversation through the Swift API, greedy.
        let model = try await LocalLanguageModel(contentsOf: URL(fileURLWithPath: smollm), configuration: .init(threads: 2))
        let session = LanguageModelSession(model: model, instructions: "You are a helpful assistant.")
        let reference = try await session.respond(to: "What is the capital of France?",
                                                  options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 24))
        let chat = try #require(out["chat"] as? [String: Any])
        #expect(chat["content"] as? String == reference.content)
        #expect(chat["object"] as? String == "chat.completion")
        #expect(chat["prompt_tokens"] as? Int == reference.usage.input.totalTokenCount)
        #expect(chat["completion_tokens"] as? Int == reference.usage.output.totalTokenCount)
        let stream = try #require(out["stream"] as? [String: Any])
        #expect(stream["content"] as? String == reference.content)
        #expect((stream["chunks"] as? Int ?? 0) > 1, "streamed in pieces")
        #expect(stream["finish_reason"] as? String == chat["finish_reason"] as? String)
        #expect(stream["completion_tokens"] as? Int == chat["completion_tokens"] as? Int)
        // The first request finds the slot's cache empty; the same prompt again finds it cached
        // (all of it but what the executor recomputes for fresh logits).
        #expect((chat["cached_tokens"] as? Int) == 0)
        let prompt = try #require(chat["prompt_tokens"] as? Int)
        #expect((1..<prompt).contains(stream["cached_tokens"] as? Int ?? 0), "\(stream)")

        let tools = try #require(out["tools"] as? [String: Any])
        #expect(tools["finish_reason"] as? String == "tool_calls")
        let calls = try #require(tools["calls"] as? [[String: Any]])
        #expect(calls.count == 1)
        #expect(calls.first?["name"] as? String == "get_weather")
        #expect((calls.first?["arguments"] as? [String: Any])?["city"] is String)
        let followup = try #require(out["tool_followup"] as? [String: Any])
        // The tool's output went back as a `tool` message and the model answered in text.
        #expect(["stop", "length"].contains(followup["finish_reason"] as? String ?? ""))
        #expect(followup["content"] is String)

        let person = try #require((out["json_schema"] as? [String: Any])?["parsed"] as? [String: Any])
        #expect(person["name"] is String)
        let age = try #require(person["age"] as? Int)
        #expect((0...120).contains(age))
        #expect(Set(person.keys) == ["name", "age"])
        // json_object: every answer, whole or streamed, is a JSON object, whatever the prompt asks for
        // (an array, a number, a string), sampled near-randomly, even when max_tokens cuts it short.
        let jsonObjects = try #require(out["json_object"] as? [[String: Any]])
        #expect(jsonObjects.count == 9)
        for answer in jsonObjects { #expect(answer["type"] as? String == "dict", "\(answer)") }

        var completion = ""
        for try await event in model.complete("The best way to learn programming is", maximumTokens: 12,
                                              sampling: .init(temperature: 0), seed: 0) {
            if case let .token(_, text) = event { completion += text }
            if case let .text(text) = event { completion += text }
        }
        #expect((out["completion"] as? [String: Any])?["text"] as? String == completion)
        #expect(out["models"] as? [String] == ["SmolLM2-135M-Instruct.Q4_1"])
        #expect((out["unknown_model"] as? [String: Any])?["status"] as? Int == 404)
        #expect((out["unknown_model"] as? [String: Any])?["code"] as? String == "model_not_found")
        #expect((out["wrong_key"] as? [String: Any])?["status"] as? Int == 401)
    }
}
