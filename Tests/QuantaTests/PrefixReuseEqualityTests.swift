import Foundation
import Testing
@testable import LocalModels
import LanguageModelAPI
import Quanta

/// A prefix-cache hit gives the bits of a miss: an executor's request over the KV rows its
/// previous request left (what a session's second turn and a server slot's next request run)
/// answers with the same tokens and per-token log-probabilities (from every logit of each step,
/// so a changed logit shows) as a fresh executor prefilling the same transcript; a session's
/// second turn the same text as a fresh session given the first turn's transcript. SmolLM2, a
/// seeded sampler so more than the top token counts. Time cap: ~30 s (one model load, nine
/// answers of at most 40 tokens).
@Suite(.serialized) struct PrefixReuseEqualityTests {
    static let options = GenerationOptions(samplingMode: .random(top: 40, seed: 3), maximumResponseTokens: 40)
    static let system = "You are a helpful assistant. Answer briefly."

    struct Answer: Equatable {
        var text = ""
        var logprobs: [LocalLanguageModel.TokenLogprob] = []
    }

    /// `transcript` (ending in a prompt) answered on `executor`: the answer and its cached prompt tokens.
    static func respond(_ executor: LocalLanguageModel.Executor, _ model: LocalLanguageModel,
                        _ transcript: Transcript) async throws -> (answer: Answer, cached: Int) {
        let request = LanguageModelExecutorGenerationRequest(id: UUID(), transcript: transcript, enabledTools: [],
                                                             generationOptions: options, contextOptions: ContextOptions(), metadata: [:])
        let channel = LanguageModelExecutorGenerationChannel()
        let log = BatchedCompletionTests.Log()
        let generation = Task {
            defer { channel.finish() }
            try await executor.respond(to: request, model: model, streamingInto: channel, sampling: nil,
                                       logprobs: .init(top: 5) { log.append($0) })
        }
        var answer = Answer(), cached = -1
        for await event in channel {
            switch event {
            case let .response(_, .appendText(text, _, _)): answer.text += text
            case let .response(_, .updateUsage(input, _, _)): cached = input.cachedTokenCount
            default: break
            }
        }
        try await generation.value
        answer.logprobs = log.lock.withLock { log.entries }
        return (answer, cached)
    }

    static func instructions(_ text: String) -> Transcript.Entry {
        .instructions(.init(segments: [.text(.init(content: text))], toolDefinitions: []))
    }

    static func response(_ text: String) -> Transcript.Entry {
        .response(.init(assetIDs: [], segments: [.text(.init(content: text))]))
    }

    /// Turn 2 on the executor that ran turn 1 (its prompt's rows cached, its answer's decoded
    /// rows dropped and prefilled again) against turn 2 on a fresh executor.
    @Test func secondTurnOverTheCacheGivesTheReplaysBits() async throws {
        let model = try await SmolLM2.model()
        let executor = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        let turn1 = [Self.instructions(Self.system), SmolLM2.prompt("What is the capital of France?")]
        let (first, none) = try await Self.respond(executor, model, Transcript(entries: turn1))
        #expect(none == 0 && !first.logprobs.isEmpty)
        let turn2 = Transcript(entries: turn1 + [Self.response(first.text), SmolLM2.prompt("And of Italy?")])
        let (hit, cached) = try await Self.respond(executor, model, turn2)
        let (miss, fresh) = try await Self.respond(try LocalLanguageModel.Executor(configuration: model.executorConfiguration), model, turn2)
        #expect(cached > 0 && fresh == 0, "cached \(cached) then \(fresh)")
        #expect(!hit.logprobs.isEmpty)
        #expect(hit == miss, "hit: \(hit.text)\nmiss: \(miss.text)")
    }

    /// Two requests sharing a system prompt on one executor (a server slot): the second finds the
    /// system prompt cached and answers as on a fresh executor.
    @Test func sharedSystemPromptHitGivesTheMissesBits() async throws {
        let model = try await SmolLM2.model()
        let executor = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        _ = try await Self.respond(executor, model, Transcript(entries: [Self.instructions(Self.system), SmolLM2.prompt("Name a fruit.")]))
        let second = Transcript(entries: [Self.instructions(Self.system), SmolLM2.prompt("Name a colour.")])
        let (hit, cached) = try await Self.respond(executor, model, second)
        let (miss, fresh) = try await Self.respond(try LocalLanguageModel.Executor(configuration: model.executorConfiguration), model, second)
        #expect(cached > 0 && fresh == 0, "cached \(cached) then \(fresh)")
        #expect(hit == miss, "hit: \(hit.text)\nmiss: \(miss.text)")
    }

    /// Through `LanguageModelSession`: the second turn against a fresh session given the first
    /// turn's transcript.
    @Test func sessionSecondTurnAnswersAsAFreshSession() async throws {
        let model = try await SmolLM2.model()
        let session = LanguageModelSession(model: model, instructions: Self.system)
        _ = try await session.respond(to: "What is the capital of France?", options: Self.options)
        let afterFirst = session.transcript
        let second = try await session.respond(to: "And of Italy?", options: Self.options)
        #expect(second.usage.input.cachedTokenCount > 0)
        let replay = try await LanguageModelSession(model: model, transcript: afterFirst).respond(to: "And of Italy?", options: Self.options)
        #expect(replay.usage.input.cachedTokenCount == 0)
        #expect(second.content == replay.content)
    }
}
