import Foundation
import Quanta
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `-np 2 --queue 1`: two requests run at once, each on its own slot, and answer exactly what
/// each answers alone (the Swift API's greedy answer); a third waits in the queue (SSE comments, no content) until a slot frees;
/// a fourth is refused with 503. Time cap: about 40 s (one model load, about 1,200 tokens).
@Suite(.serialized) struct ParallelSlotsTests {
    static func body(_ prompt: String, tokens: Int) -> String {
        #"{"messages":[{"role":"user","content":"\#(prompt)"}],"max_tokens":\#(tokens),"temperature":0,"stream":true}"#
    }

    /// The content deltas of a finished stream file, joined.
    func content(_ file: URL) throws -> String {
        var text = ""
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") where line.hasPrefix("data: {") {
            let chunk = try JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any]
            text += ((chunk?["choices"] as? [[String: Any]])?.first?["delta"] as? [String: Any])?["content"] as? String ?? ""
        }
        return text
    }

    @Test func slotsRunSideBySideAndTheQueueWaits() async throws {
        let server = try ServerProcess(["-np", "2", "--queue", "1"])
        defer { #expect(server.terminate() == 0) }
        let chat = server.baseURL + "/v1/chat/completions"
        // Counting keeps both slots busy for all `tokens` (no early end of text), so the third
        // request certainly finds them taken, however fast the host runs.
        let prompts = ["Write the numbers from 100 to 400, separated by commas.", "Write the numbers from 500 to 900, separated by commas."]
        let tokens = 300
        let (a, fileA) = try startStream(chat, body: Self.body(prompts[0], tokens: tokens))
        let (b, fileB) = try startStream(chat, body: Self.body(prompts[1], tokens: tokens))
        defer { for f in [fileA, fileB] { try? FileManager.default.removeItem(at: f) } }
        _ = try waitForEvents(fileA, count: 3)
        _ = try waitForEvents(fileB, count: 3)
        // Both slots busy: the third request queues, the fourth is refused.
        let (c, fileC) = try startStream(chat, body: Self.body("Say hi.", tokens: 4))
        defer { try? FileManager.default.removeItem(at: fileC) }
        var queued = false
        for _ in 0..<500 where !queued {
            queued = try curl(server.baseURL + "/metrics", method: "GET").body.contains("quanta_queue_depth 1")
            if !queued { usleep(10_000) }
        }
        #expect(queued)
        let refused = try curl(chat, body: #"{"messages":[{"role":"user","content":"hi"}],"max_tokens":2}"#)
        #expect(refused.status == 503 || !a.isRunning || !b.isRunning)
        for p in [a, b, c] { p.waitUntilExit() }
        // The queued request ran once a slot was free, and every stream ended properly.
        for f in [fileA, fileB, fileC] { #expect(try String(contentsOf: f, encoding: .utf8).hasSuffix("data: [DONE]\n\n")) }
        #expect(!(try content(fileC)).isEmpty)
        // Side by side, each answered exactly what it answers alone through the Swift API (a
        // fresh session: an empty cache, as each slot had).
        let model = try await LocalLanguageModel(contentsOf: URL(fileURLWithPath: smollm), configuration: .init(threads: 2))
        for (prompt, file) in zip(prompts, [fileA, fileB]) {
            let alone = try await LanguageModelSession(model: model)
                .respond(to: prompt, options: GenerationOptions(sampling: .greedy, maximumResponseTokens: tokens)).content
            let together = try content(file)
            #expect(together == alone, "\(prompt): side by side \(together.debugDescription), alone \(alone.debugDescription)")
        }
    }
}
