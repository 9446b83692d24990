import Foundation
import JSON
import Testing
@testable import Server

/// The lines `/api/chat` and `/api/generate` answer with when the model calls tools or thinks,
/// read by the official `ollama` Python package's own response models (`ChatResponse`,
/// `GenerateResponse`): the calls' names and arguments (an object, as Ollama sends them), the
/// thinking and the text come out as written. SmolLM2 does not call tools unprompted, so the
/// answer is made here rather than generated. Time cap: about 5 s (one Python start).
@Suite struct OllamaResponseShapeTests {
    static let reader = """
        import json, sys
        import ollama
        out = []
        for kind, line in zip(sys.argv[1::2], sys.argv[2::2]):
            if kind == "chat":
                r = ollama.ChatResponse.model_validate_json(line)
                out.append({"done": r.done, "content": r.message.content, "thinking": r.message.thinking,
                            "calls": [{"name": c.function.name, "arguments": dict(c.function.arguments)}
                                      for c in r.message.tool_calls or []]})
            else:
                r = ollama.GenerateResponse.model_validate_json(line)
                out.append({"done": r.done, "response": r.response, "thinking": r.thinking})
        print(json.dumps(out))
        """

    @Test func theOllamaClientReadsToolCallsAndThinking() throws {
        var a = ChatAnswer()
        a.content = "Here."
        a.reasoning = "Paris, then weather."
        a.toolCalls = [("c1", "get_weather", #"{"city":"Paris","days":2}"#), ("c2", "get_time", "{}")]
        a.finishReason = "tool_calls"
        let lines: [(String, JSONValue)] = [
            ("chat", OllamaResponses.final(model: "m", answer: a, generate: false, whole: true, seconds: 1)),
            ("chat", OllamaResponses.piece(model: "m", generate: false, toolCalls: OllamaResponses.toolCalls(a))),
            ("chat", OllamaResponses.piece(model: "m", generate: false, thinking: "Paris")),
            ("chat", OllamaResponses.final(model: "m", answer: a, generate: false, whole: false, seconds: 1)),
            ("generate", OllamaResponses.final(model: "m", answer: a, generate: true, whole: true, seconds: 1)),
        ]
        let result = try run("python3", ["-c", Self.reader] + lines.flatMap { [$0.0, $0.1.jsonText] }, timeout: 60)
        try #require(result.status == 0, "\(result.stderr)")
        let out = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        try #require(out.count == 5)
        let calls: [[String: Any]] = [["name": "get_weather", "arguments": ["city": "Paris", "days": 2]], ["name": "get_time", "arguments": [:]]]
        let expected: [[String: Any]] = [
            ["done": true, "content": "Here.", "thinking": "Paris, then weather.", "calls": calls],
            ["done": false, "content": "", "thinking": NSNull(), "calls": calls],
            ["done": false, "content": "", "thinking": "Paris", "calls": []],
            ["done": true, "content": "", "thinking": NSNull(), "calls": []],
            ["done": true, "response": "Here.", "thinking": "Paris, then weather."],
        ]
        for (got, want) in zip(out, expected) {
            let g = try JSONSerialization.data(withJSONObject: got, options: .sortedKeys)
            let w = try JSONSerialization.data(withJSONObject: want, options: .sortedKeys)
            #expect(g == w, "\(String(decoding: g, as: UTF8.self)) against \(String(decoding: w, as: UTF8.self))")
        }
    }
}
