import Foundation
import Testing
@testable import LocalModels
import Quanta

/// Raw completions (`LocalLanguageModel.complete`, what `quanta generate` and `/v1/completions`
/// run) decode on the model's `DecodeBatcher` beside chat sessions and get the bits they get
/// alone: two SmolLM2 completions (one greedy, one seeded sampling) and two chat sessions run one
/// after another, then all four at once; each completion's tokens and per-token log-probabilities
/// (computed from every logit of the step, so a changed logit shows) and each chat's text must be
/// equal, the batcher must have run steps of more than one row, and alone a completion of n tokens
/// ran n − 1 decode steps (its last token is never run). Time cap: about 20 s (one model load,
/// eight answers of at most 40 tokens).
@Suite(.serialized) struct BatchedCompletionTests {
    static let completions: [(prompt: String, sampling: LocalLanguageModel.SamplingDefaults)] = [
        ("The three primary colours are", .init(temperature: 0)),
        ("Once upon a time, a small robot", .init(temperature: 0.8, topK: 40, seed: 11)),
    ]
    static let chats: [(prompt: String, options: GenerationOptions)] = [
        ("Name three colours.", GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 40)),
        ("Write one sentence about the sea.", GenerationOptions(samplingMode: .random(top: 40, seed: 5), maximumResponseTokens: 40)),
    ]

    /// What one completion produced: its token ids and each token's log-probability with the top 5.
    struct Run: Equatable {
        var tokens: [Int32] = []
        var logprobs: [LocalLanguageModel.TokenLogprob] = []
    }

    final class Log: @unchecked Sendable {
        let lock = NSLock()
        var entries: [LocalLanguageModel.TokenLogprob] = []
        func append(_ e: LocalLanguageModel.TokenLogprob) { lock.withLock { entries.append(e) } }
    }

    static func complete(_ model: LocalLanguageModel, _ c: (prompt: String, sampling: LocalLanguageModel.SamplingDefaults)) async throws -> Run {
        let log = Log()
        var run = Run()
        for try await event in model.complete(c.prompt, maximumTokens: 40, sampling: c.sampling,
                                              logprobs: .init(top: 5) { log.append($0) }) {
            if case let .finished(tokens, _, _) = event { run.tokens = tokens }
        }
        run.logprobs = log.lock.withLock { log.entries }
        return run
    }

    static func chat(_ model: LocalLanguageModel, _ c: (prompt: String, options: GenerationOptions)) async throws -> String {
        try await LanguageModelSession(model: model).respond(to: c.prompt, options: c.options).content
    }

    enum Answer { case completion(Int, Run), chat(Int, String) }

    @Test func completionsBatchedWithChatsAnswerAsAlone() async throws {
        let url = PerplexityReference.root.appendingPathComponent("Models/SmolLM2-135M-Instruct.Q4_1.gguf")
        let model = try await LocalLanguageModel(contentsOf: url, configuration: .init(contextSize: 448, threads: 2))
        let batcher = model.loaded.batcher(threads: 2, contextSize: 448)
        var aloneRuns: [Run] = [], aloneChats: [String] = []
        for c in Self.completions { aloneRuns.append(try await Self.complete(model, c)) }
        // Each generated token but the last ran in a decode step of its own: a reply of n tokens
        // costs n - 1 forward passes (the last token's logits are never needed).
        let completionTokens = aloneRuns.reduce(0) { $0 + $1.tokens.count }
        #expect(batcher.runSoFar.steps == completionTokens - aloneRuns.count, "the completions decoded on the batcher")
        #expect(batcher.runSoFar.rows == batcher.runSoFar.steps)
        for c in Self.chats { aloneChats.append(try await Self.chat(model, c)) }
        let before = batcher.runSoFar
        #expect(before.largest == 1, "requests one after another ran alone")
        for run in aloneRuns { #expect(run.tokens.count == run.logprobs.count && !run.tokens.isEmpty) }

        var runs = [Run](repeating: Run(), count: Self.completions.count)
        var chats = [String](repeating: "", count: Self.chats.count)
        try await withThrowingTaskGroup(of: Answer.self) { group in
            for (i, c) in Self.completions.enumerated() { group.addTask { .completion(i, try await Self.complete(model, c)) } }
            for (i, c) in Self.chats.enumerated() { group.addTask { .chat(i, try await Self.chat(model, c)) } }
            for try await answer in group {
                switch answer {
                case let .completion(i, run): runs[i] = run
                case let .chat(i, text): chats[i] = text
                }
            }
        }
        for (i, run) in runs.enumerated() {
            #expect(run.tokens == aloneRuns[i].tokens, "completion \(i): batched \(run.tokens), alone \(aloneRuns[i].tokens)")
            #expect(run.logprobs == aloneRuns[i].logprobs, "completion \(i): the log-probabilities differ batched and alone")
        }
        #expect(chats == aloneChats)
        let after = batcher.runSoFar
        #expect(after.largest >= 2, "the completions and chats never shared a decode step")
        #expect(after.rows - before.rows > after.steps - before.steps, "batched steps: \(after.steps - before.steps) for \(after.rows - before.rows) rows")
    }
}
