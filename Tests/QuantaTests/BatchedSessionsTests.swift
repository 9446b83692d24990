import Foundation
import Testing
@testable import LocalModels
import Quanta

/// Sessions on one model decode as one batch (the model's `DecodeBatcher`) and each gets the
/// answer it gets alone: three SmolLM2 sessions (two greedy, one seeded sampling) answer their
/// prompts one after another, then three fresh sessions answer the same prompts at once; the
/// texts must be equal, and the batcher must have run steps of more than one row. Time cap:
/// about 20 s (one model load, six answers of at most 48 tokens).
@Suite(.serialized) struct BatchedSessionsTests {
    static let cases: [(prompt: String, options: GenerationOptions)] = [
        ("Name three colours.", GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 48)),
        ("Write one sentence about the sea.", GenerationOptions(samplingMode: .random(top: 40, seed: 5), maximumResponseTokens: 48)),
        ("What is two plus two?", GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 48)),
    ]

    static func answer(_ model: LocalLanguageModel, _ c: (prompt: String, options: GenerationOptions)) async throws -> String {
        try await LanguageModelSession(model: model).respond(to: c.prompt, options: c.options).content
    }

    /// A window no other suite uses: the batcher is per file, threads and window, and suites run
    /// in parallel, so another suite's requests must not share its steps.
    @Test func concurrentSessionsAnswerAsAlone() async throws {
        let url = PerplexityReference.root.appendingPathComponent("Models/SmolLM2-135M-Instruct.Q4_1.gguf")
        let model = try await LocalLanguageModel(contentsOf: url, configuration: .init(contextSize: 480, threads: 2))
        let batcher = model.loaded.batcher(threads: 2, contextSize: 480)
        var alone: [String] = []
        for c in Self.cases { alone.append(try await Self.answer(model, c)) }
        let before = batcher.runSoFar
        #expect(before.largest == 1, "sessions one after another ran alone")
        let together = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (i, c) in Self.cases.enumerated() { group.addTask { (i, try await Self.answer(model, c)) } }
            var out = [String](repeating: "", count: Self.cases.count)
            for try await (i, text) in group { out[i] = text }
            return out
        }
        #expect(together == alone)
        let after = batcher.runSoFar
        #expect(after.largest >= 2, "the concurrent sessions never shared a decode step")
        #expect(after.rows - before.rows > after.steps - before.steps, "batched steps: \(after.steps - before.steps) for \(after.rows - before.rows) rows")
    }
}
