import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `GET /metrics` reports what the batcher ran, checked against what the requests say they used:
/// two streamed chats at once on `-np 2` and then one raw completion; every generated token but
/// each reply's last is one decode row (the last needs no logits after it), every prompt token not
/// in a slot's cache is prefilled, and the chats side by side shared steps. Time cap: about 20 s (one model load,
/// about 100 tokens).
@Suite(.serialized) struct BatchingMetricsTests {
    /// The value of the sample `name` (no labels) in a metrics text.
    func sample(_ text: String, _ name: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.dropFirst(name.count + 1)) }
    }

    /// (prompt tokens, cached tokens, completion tokens) from the usage chunk of a finished stream file.
    func usage(_ file: URL) throws -> (Int, Int, Int) {
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") where line.hasPrefix("data: {") {
            let chunk = try JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any]
            if let u = chunk?["usage"] as? [String: Any] {
                let cached = (u["prompt_tokens_details"] as? [String: Any])?["cached_tokens"] as? Int ?? 0
                return (u["prompt_tokens"] as? Int ?? -1, cached, u["completion_tokens"] as? Int ?? -1)
            }
        }
        Issue.record("no usage chunk in \(file.path)")
        return (0, 0, 0)
    }

    @Test func metricsCountWhatTheRequestsRan() throws {
        let server = try ServerProcess(["-np", "2", "-c", "512"])
        defer { #expect(server.terminate() == 0) }
        let before = try curl(server.baseURL + "/metrics", method: "GET").body
        #expect(sample(before, "quanta_decode_steps_total") == 0)
        #expect(sample(before, "quanta_prefill_tokens_total") == 0)
        let chat = server.baseURL + "/v1/chat/completions"
        let prompts = ["Write the numbers from 100 to 400, separated by commas.", "Write the numbers from 500 to 900, separated by commas."]
        var streams: [(Process, URL)] = []
        for p in prompts {
            streams.append(try startStream(chat, body: #"{"messages":[{"role":"user","content":"\#(p)"}],"max_tokens":40,"temperature":0,"stream":true,"stream_options":{"include_usage":true}}"#))
        }
        defer { for (_, f) in streams { try? FileManager.default.removeItem(at: f) } }
        for (p, _) in streams { p.waitUntilExit() }
        var prefilled = 0, generated = 0, replies = 0
        for (_, f) in streams {
            let (prompt, cached, completion) = try usage(f)
            prefilled += prompt - cached
            generated += completion
            replies += 1
        }
        let completion = try curl(server.baseURL + "/v1/completions", body: #"{"prompt":"The three primary colours are","max_tokens":8,"temperature":0}"#)
        #expect(completion.status == 200)
        let u = try #require((try JSONSerialization.jsonObject(with: Data(completion.body.utf8)) as? [String: Any])?["usage"] as? [String: Any])
        prefilled += u["prompt_tokens"] as? Int ?? -1
        generated += u["completion_tokens"] as? Int ?? -1
        replies += 1

        let after = try curl(server.baseURL + "/metrics", method: "GET").body
        #expect(sample(after, "quanta_decode_step_rows_sum") == Double(generated - replies), "\(after)")
        #expect(sample(after, "quanta_prefill_tokens_total") == Double(prefilled), "\(after)")
        #expect(sample(after, "quanta_prefill_batches_total") == 3, "one batch per prompt (each under 256 tokens)")
        let steps = try #require(sample(after, "quanta_decode_steps_total"))
        #expect(sample(after, "quanta_decode_step_rows_count") == steps)
        #expect(steps < Double(generated - replies), "the two chats shared decode steps: \(steps) steps for \(generated - replies) rows")
        #expect(sample(after, "quanta_decode_step_rows_max") == 2)
    }
}
