import Foundation
import Testing

/// Every client mistake is a 4xx with OpenAI's error object, checked with curl on one server
/// (`-c 128`, so a long prompt does not fit; `--api-key`; a 4 KiB body limit is not settable,
/// so the 413 sends 9 MiB). Time cap: about 15 s (one model load, no generation).
@Suite(.serialized) struct HTTPErrorTests {
    static let key = "Authorization: Bearer sk-errors"

    /// The body is `{"error": {"message", "type", "param", "code"}}` with this code and param.
    func expectError(_ r: (status: Int, body: String), status: Int, code: String, param: String? = nil,
                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(r.status == status, "\(r.body)", sourceLocation: sourceLocation)
        let object = try JSONSerialization.jsonObject(with: Data(r.body.utf8)) as? [String: Any]
        let error = try #require(object?["error"] as? [String: Any], "\(r.body)", sourceLocation: sourceLocation)
        #expect(error["message"] is String, sourceLocation: sourceLocation)
        #expect(error["type"] is String, sourceLocation: sourceLocation)
        #expect(error.keys.contains("param") && error.keys.contains("code"), sourceLocation: sourceLocation)
        #expect(error["code"] as? String == code, "\(r.body)", sourceLocation: sourceLocation)
        if let param { #expect(error["param"] as? String == param, "\(r.body)", sourceLocation: sourceLocation) }
    }

    @Test func clientMistakesAre4xxWithOpenAIsErrorObject() throws {
        let server = try ServerProcess(["-c", "128", "--api-key", "sk-errors"])
        defer { #expect(server.terminate() == 0) }
        let chat = server.baseURL + "/v1/chat/completions"
        let hi = #"[{"role":"user","content":"hi"}]"#
        let cases: [(body: String, status: Int, code: String, param: String?)] = [
            ("{\"messages\": ", 400, "invalid_json", nil),
            ("[1, 2]", 400, "invalid_value", "body"),
            (#"{"messages": "hi"}"#, 400, "invalid_value", "messages"),
            (#"{"messages": []}"#, 400, "invalid_value", "messages"),
            (#"{"messages": [{"role": "robot", "content": "x"}]}"#, 400, "invalid_value", "messages[0].role"),
            (#"{"messages": \#(hi), "temperature": "hot"}"#, 400, "invalid_value", "temperature"),
            (#"{"messages": \#(hi), "temperature": 7}"#, 400, "invalid_value", "temperature"),
            (#"{"messages": \#(hi), "max_tokens": 1.5}"#, 400, "invalid_value", "max_tokens"),
            (#"{"messages": \#(hi), "stream": "yes"}"#, 400, "invalid_value", "stream"),
            (#"{"model": "gpt-4o", "messages": \#(hi)}"#, 404, "model_not_found", "model"),
            (#"{"messages": \#(hi), "top_logprobs": 2}"#, 400, "invalid_value", "top_logprobs"),
            (#"{"messages": \#(hi), "logprobs": true, "top_logprobs": 21}"#, 400, "invalid_value", "top_logprobs"),
            (#"{"messages": \#(hi), "logprobs": 1}"#, 400, "invalid_value", "logprobs"),
            (#"{"messages": \#(hi), "presence_penalty": 2.5}"#, 400, "invalid_value", "presence_penalty"),
            (#"{"messages": \#(hi), "n": 2}"#, 400, "unsupported_parameter", "n"),
            (#"{"messages": \#(hi), "best_of": 2}"#, 400, "unsupported_parameter", "best_of"),
            (#"{"messages": \#(hi), "tool_choice": "required"}"#, 400, "invalid_value", "tool_choice"),
            (#"{"messages": \#(hi), "response_format": {"type": "xml"}}"#, 400, "invalid_value", "response_format.type"),
            (#"{"messages": [{"role": "user", "content": "\#(String(repeating: "word ", count: 400))"}]}"#, 400,
             "context_length_exceeded", "messages"),
        ]
        for c in cases {
            try expectError(try curl(chat, body: c.body, headers: [Self.key]), status: c.status, code: c.code, param: c.param)
        }
        // Streamed too: a prompt that cannot fit is a 400 before the event stream starts.
        let long = String(repeating: "word ", count: 400)
        try expectError(try curl(chat, body: #"{"stream": true, "messages": [{"role": "user", "content": "\#(long)"}]}"#,
                                 headers: [Self.key]), status: 400, code: "context_length_exceeded", param: "messages")
        try expectError(try curl(server.baseURL + "/v1/completions", body: #"{"prompt": 5}"#, headers: [Self.key]),
                        status: 400, code: "invalid_value", param: "prompt")
        try expectError(try curl(server.baseURL + "/v1/nothing", method: "GET", headers: [Self.key]), status: 404, code: "not_found")
        try expectError(try curl(server.baseURL + "/v1/models", method: "DELETE", headers: [Self.key]), status: 405, code: "method_not_allowed")
    }

    @Test func theAPIKeyGuardsEverythingButHealth() throws {
        let server = try ServerProcess(["--api-key", "sk-errors"])
        defer { #expect(server.terminate() == 0) }
        try expectError(try curl(server.baseURL + "/v1/models", method: "GET"), status: 401, code: "invalid_api_key")
        try expectError(try curl(server.baseURL + "/v1/models", method: "GET", headers: ["Authorization: Bearer sk-error"]),
                        status: 401, code: "invalid_api_key")
        try expectError(try curl(server.baseURL + "/v1/chat/completions", body: "{}", headers: ["Authorization: Bearer sk-errorsX"]),
                        status: 401, code: "invalid_api_key")
        #expect(try curl(server.baseURL + "/v1/models", method: "GET", headers: [Self.key]).status == 200)
        let health = try curl(server.baseURL + "/health", method: "GET")
        #expect(health.status == 200 && health.body == #"{"status":"ok"}"#)
    }

    @Test func aBodyOverTheLimitIs413() throws {
        let server = try ServerProcess([])
        defer { #expect(server.terminate() == 0) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("quanta-413-\(getpid()).json").path
        try Data(("{\"messages\": \"" + String(repeating: "x", count: 9 << 20) + "\"}").utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        try expectError(try curl(server.baseURL + "/v1/chat/completions", body: "@" + path), status: 413, code: "request_too_large")
        // Chunked: no Content-Length to refuse early; the body is counted as it arrives.
        try expectError(try curl(server.baseURL + "/v1/chat/completions", body: "@" + path, headers: ["Transfer-Encoding: chunked"]),
                        status: 413, code: "request_too_large")
        // The server still answers afterwards.
        #expect(try curl(server.baseURL + "/health", method: "GET").status == 200)
    }
}
