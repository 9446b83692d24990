import DesignedModels
import Foundation
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

/// Reasoning on `ThinkingModel`, whose greedy output is known token by token, so every count
/// and every budget cut-off is checked exactly.
@Suite(.serialized) struct ReasoningTests {
    static let url: URL = try! ThinkingModel.write()

    func model() async throws -> LocalLanguageModel {
        try await LocalLanguageModel(contentsOf: Self.url, configuration: .init(contextSize: 128, threads: 1))
    }

    /// The request's input: `<s>` (written by the template, not doubled), `<|user|>`, the five
    /// byte tokens of "hello", `<|assistant|>`.
    let promptTokens = 8
    /// Response limit M = 32: U = 32 − 2 − 32/8 = 26 thinking tokens usable.
    let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 32)

    @Test func thinkMarkersDeclareReasoning() async throws {
        let model = try await model()
        #expect(model.capabilities.contains(.reasoning))
        #expect(try await model.tokenCount(for: "hello") == promptTokens)
    }

    /// Each level's budget, from the documented mapping with U = 26; the model would think for
    /// 20 tokens, so light and moderate are cut off by the engine, deep is not.
    @Test(arguments: [
        (ContextOptions.ReasoningLevel.light, 6), (.moderate, 13), (.deep, 20), (.custom("budget:3"), 3),
        (.custom("none"), 0), (.custom("budget:100"), 20),
    ])
    func budgetCutsThinkingAndTheAnswerFollows(_ level: ContextOptions.ReasoningLevel, thoughts: Int) async throws {
        let session = LanguageModelSession(model: try await model())
        let response = try await session.respond(to: "hello", options: options, contextOptions: ContextOptions(reasoningLevel: level))
        #expect(response.content == ThinkingModel.text(ThinkingModel.answer[...]))
        // <think> + thoughts + </think>, then the answer words and </s>.
        #expect(response.usage.output.reasoningTokenCount == thoughts + 2)
        #expect(response.usage.output.totalTokenCount == thoughts + 2 + ThinkingModel.answer.count + 1)
        #expect(response.usage.input == LanguageModelSession.Usage.Input(totalTokenCount: promptTokens, cachedTokenCount: 0))
        let entries = Array(response.transcriptEntries)
        #expect(entries.count == 3)
        guard entries.count == 3, case .prompt = entries[0], case let .reasoning(reasoning) = entries[1],
              case let .response(answer) = entries[2] else {
            Issue.record("unexpected entries \(entries)")
            return
        }
        #expect(Transcript.Entry.reasoning(reasoning).plainText == ThinkingModel.text(ThinkingModel.thoughts.prefix(thoughts)))
        #expect(Transcript.Entry.response(answer).plainText == response.content)
        #expect(Array(session.transcript) == entries)
    }

    /// Without a level the model thinks as long as it likes within the default (deep) budget.
    @Test func defaultLevelThinksFreely() async throws {
        let session = LanguageModelSession(model: try await model())
        let response = try await session.respond(to: "hello", options: options)
        #expect(response.usage.output.reasoningTokenCount == ThinkingModel.thoughts.count + 2)
        #expect(response.content == ThinkingModel.text(ThinkingModel.answer[...]))
    }

    /// The executor's events, in order: usage after prefill, the think block token by token
    /// (markers as empty text), the answer, the end token, final usage.
    @Test func executorStreamsReasoningThenAnswer() async throws {
        let model = try await model()
        let executor = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        let channel = LanguageModelExecutorGenerationChannel()
        let request = LanguageModelExecutorGenerationRequest(
            transcript: Transcript(entries: [.prompt(.init(segments: [.text(.init(content: "hello"))]))]),
            generationOptions: options, contextOptions: ContextOptions(reasoningLevel: .light))
        try await executor.respond(to: request, model: model, streamingInto: channel)
        channel.finish()
        var events: [String] = []
        for await event in channel {
            switch event {
            case let .reasoning(_, .appendText(text, _, count)): events.append("R[\(text)]\(count)")
            case let .response(_, .appendText(text, _, count)): events.append("A[\(text)]\(count)")
            case let .response(_, .updateUsage(input, output, _)):
                events.append("U\(input.totalTokenCount)/\(input.cachedTokenCount)/\(output.totalTokenCount)/\(output.reasoningTokenCount)")
            default: events.append("other: \(event)")
            }
        }
        let thoughts = ThinkingModel.thoughts.prefix(6).map { "R[ \($0)]1" }
        let answer = ThinkingModel.answer.map { "A[ \($0)]1" }
        #expect(events == ["U8/0/0/0", "R[]1"] + thoughts + ["R[]1"] + answer + ["A[]1", "U8/0/12/8"])
    }

    /// Session streaming: snapshots never show thinking in `content`, and the final snapshot
    /// carries the reasoning entry.
    @Test func streamedContentExcludesReasoning() async throws {
        let session = LanguageModelSession(model: try await model())
        var contents: [String] = []
        var final: LanguageModelSession.ResponseStream<String>.Snapshot?
        for try await snapshot in session.streamResponse(to: "hello", options: options,
                                                         contextOptions: ContextOptions(reasoningLevel: .custom("budget:2"))) {
            contents.append(snapshot.content)
            final = snapshot
        }
        #expect(contents.allSatisfy { ThinkingModel.text(ThinkingModel.answer[...]).hasPrefix($0) })
        #expect(contents.first == "")   // the think block streams before any answer text
        #expect(final?.usage.output.reasoningTokenCount == 4)
        #expect(final?.transcriptEntries.count == 3)
    }

    /// A transcript survives JSON, and a session restored from it renders exactly the prompt
    /// `tokenCount(for:)` predicts for the saved history plus the new prompt.
    @Test func transcriptRoundTripsThroughJSON() async throws {
        let model = try await model()
        let session = LanguageModelSession(model: model, instructions: "hi")
        _ = try await session.respond(to: "hello", options: options, contextOptions: ContextOptions(reasoningLevel: .light))
        let data = try JSONEncoder().encode(session.transcript)
        let restored = try JSONDecoder().decode(Transcript.self, from: data)
        #expect(restored == session.transcript)
        #expect(restored.count == 4)
        let next = Array(restored) + [Transcript.Entry.prompt(.init(segments: [.text(.init(content: "hello"))]))]
        let a = try await LanguageModelSession(model: model, transcript: restored).respond(to: "hello", options: options)
        #expect(a.usage.input.totalTokenCount == (try await model.tokenCount(for: next)))
    }

    /// A history transform changes what is sent (here: only the newest prompt), not the
    /// session's transcript.
    @Test func historyTransformTrimsWhatIsSent() async throws {
        let model = try await model()
        let session = LanguageModelSession(model: model, instructions: "hi", historyTransform: { Transcript(entries: $0.suffix(1)) })
        _ = try await session.respond(to: "hello", options: options)
        let second = try await session.respond(to: "hello", options: options)
        #expect(second.usage.input.totalTokenCount == promptTokens)   // as if the prompt were alone
        #expect(session.transcript.count == 7)   // instructions + 2 × (prompt, reasoning, response)
    }

    /// A small response limit still leaves room for the answer.
    @Test func smallLimitStillAnswers() async throws {
        let session = LanguageModelSession(model: try await model())
        // M = 9: U = 9 − 2 − 1 = 6 thinking tokens at deep, then </think>, 3 words... and the
        // limit ends it before </s>.
        let response = try await session.respond(to: "hello", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 9),
                                                 contextOptions: ContextOptions(reasoningLevel: .deep))
        #expect(response.usage.output.totalTokenCount == 9)
        #expect(response.usage.output.reasoningTokenCount == 8)
        #expect(response.content == " Paris")
    }
}
