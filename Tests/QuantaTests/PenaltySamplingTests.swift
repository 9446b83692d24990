import Foundation
import Testing
@testable import LocalModels
import Quanta

/// OpenAI's frequency and presence penalties through the engine (`LocalLanguageModel.complete`,
/// greedy) against a naive greedy loop over the same model's logits: logit − count·frequency −
/// (count > 0)·presence in double over the generated tokens only (the prompt's do not count),
/// argmax with the lowest id on ties. The two token sequences must be equal, and differ from the
/// unpenalised greedy answer. Time cap: about 10 s (one model load, about 200 tokens).
@Suite(.serialized) struct PenaltySamplingTests {
    static let prompt = "Colours: red, green, blue, red, green, blue, red,"
    static let steps = 40

    /// The naive loop: the prompt in one forward pass, then one token at a time (as the engine runs them).
    func naiveGreedy(_ model: LocalLanguageModel, prompt: [Int32], frequency: Double, presence: Double) throws -> [Int32] {
        let sequence = TokenSequence(network: model.loaded.network, contextSize: 512, threads: 2)
        var logits = try #require(try sequence.append(prompt, wantLogits: true))
        var counts: [Int32: Int] = [:]
        var out: [Int32] = []
        while out.count < Self.steps {
            var best = 0, bestValue = -Double.infinity
            for (i, logit) in logits.enumerated() {
                let count = Double(counts[Int32(i)] ?? 0)
                let value = Double(logit) - count * frequency - (count > 0 ? presence : 0)
                if value > bestValue { best = i; bestValue = value }
            }
            let token = Int32(best)
            out.append(token)
            if model.loaded.tokenizer.endOfGenerationIDs.contains(token) { break }
            counts[token, default: 0] += 1
            logits = try #require(try sequence.appendOne(token, wantLogits: true))
        }
        return out
    }

    /// The engine's greedy completion with these penalties: (prompt tokens, generated tokens).
    func engine(_ model: LocalLanguageModel, frequency: Double, presence: Double) async throws -> ([Int32], [Int32]) {
        var settings = LocalLanguageModel.SamplingDefaults(temperature: 0)
        settings.frequencyPenalty = frequency
        settings.presencePenalty = presence
        var prompt: [Int32] = [], generated: [Int32] = []
        for try await event in model.complete(Self.prompt, maximumTokens: Self.steps, sampling: settings) {
            if case let .prefilled(tokens, _) = event { prompt = tokens }
            if case let .finished(tokens, _, _) = event { generated = tokens }
        }
        return (prompt, generated)
    }

    @Test func penaltiesMatchANaiveGreedyLoop() async throws {
        let model = try await SmolLM2.model(contextSize: 512)
        let (prompt, plain) = try await engine(model, frequency: 0, presence: 0)
        #expect(plain == (try naiveGreedy(model, prompt: prompt, frequency: 0, presence: 0)))
        for (frequency, presence) in [(1.5, 0.0), (0.0, 2.0), (0.7, 0.4), (-0.5, 0.0)] {
            let (_, penalised) = try await engine(model, frequency: frequency, presence: presence)
            let naive = try naiveGreedy(model, prompt: prompt, frequency: frequency, presence: presence)
            #expect(penalised == naive, "frequency \(frequency), presence \(presence)")
            #expect(penalised != plain, "frequency \(frequency), presence \(presence) changed nothing")
        }
    }
}
