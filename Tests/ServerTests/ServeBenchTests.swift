import Foundation
import Testing

/// `bench serve` against `quanta serve` only, with tiny numbers: its report must agree with
/// itself and with the server's own counts (the answer chunks the client counted equal the
/// `usage` the server reported; each answer within max_tokens; TTFT p50 ≤ p99). Time cap: about
/// 20 s (one model load, 3 requests of 8 tokens plus a warm-up).
@Suite(.serialized) struct ServeBenchTests {
    let bench = "\(repositoryRoot)/.build/release/bench"

    @Test func aSmallRunReportsConsistentFigures() throws {
        let result = try run(bench, ["serve", "-m", smollm, "--servers", "quanta", "--clients", "1,2", "-n", "8", "--requests", "1",
                                     "-r", "1", "-np", "2", "-t", "2", "-c", "512", "--json"], timeout: 120)
        try #require(result.status == 0, "\(result.stderr)")
        let rows = try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(rows.map { $0["clients"] as? Int } == [1, 2])
        for row in rows {
            let clients = try #require(row["clients"] as? Int)
            #expect(row["server"] as? String == "quanta")
            #expect(row["requests"] as? Int == clients)
            #expect(row["failures"] as? Int == 0)
            // The tokens the client saw stream in are the tokens the server says it generated.
            let tokens = try #require(row["completion_tokens"] as? Int)
            #expect(tokens == row["content_chunks"] as? Int, "\(row)")
            #expect((clients...(8 * clients)).contains(tokens))
            #expect((row["prompt_tokens"] as? Int ?? 0) > 10 * clients)
            let p50 = try #require(row["ttft_p50_ms"] as? Double), p99 = try #require(row["ttft_p99_ms"] as? Double)
            #expect(p50 > 0 && p50 <= p99)
            #expect((row["stream_tok_s"] as? Double ?? 0) > 0)
            #expect((row["aggregate_tok_s"] as? Double ?? 0) > 0)
            #expect(row["ratio"] == nil, "no llama-server, no ratio")
        }
    }

    @Test func anUnknownServerIsOneLineOfError() throws {
        let result = try run(bench, ["serve", "--servers", "ollama"], timeout: 30)
        #expect(result.status == 2)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("unknown server 'ollama'"))
    }
}
