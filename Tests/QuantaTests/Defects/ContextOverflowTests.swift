// An answer that runs into the end of the context window is an error, as in FM27
// (`LanguageModelError.contextSizeExceeded`), not an answer cut short without a word.
// Time cap: about 8 s on two cores (SmolLM2 with 96- and 160-token windows).
import Foundation
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

@Suite(.serialized) struct ContextOverflowTests {
    static let contextSize = 96
    static let prompt = "Write a long story about a dragon who learns to bake bread."

    /// `respond` throws `contextSizeExceeded` with the window and the tokens the answer needed,
    /// and the request leaves the transcript and the session as they were.
    @Test func answerThatFillsTheWindowThrows() async throws {
        let model = try await SmolLM2.model(contextSize: Self.contextSize)
        let session = LanguageModelSession(model: model)
        let promptTokens = try await model.tokenCount(for: Self.prompt)
        do {
            let response = try await session.respond(to: Self.prompt, options: GenerationOptions(samplingMode: .greedy))
            Issue.record("the answer was cut at the end of the window without an error: \(response.usage.output.totalTokenCount) tokens, \(response.content.debugDescription)")
        } catch let LanguageModelError.contextSizeExceeded(exceeded) {
            #expect(exceeded.contextSize == Self.contextSize)
            // The prompt and every token generated, one more than the window holds.
            #expect(exceeded.tokenCount == Self.contextSize + 1)
            #expect(exceeded.tokenCount > promptTokens)
        }
        #expect(session.transcript.isEmpty && !session.isResponding)
    }

    /// A stream ends with the same error after the snapshots it could produce.
    @Test func streamEndsWithTheError() async throws {
        let session = LanguageModelSession(model: try await SmolLM2.model(contextSize: Self.contextSize))
        var snapshots = 0
        await #expect(throws: LanguageModelError.self) {
            for try await _ in session.streamResponse(to: Self.prompt, options: GenerationOptions(samplingMode: .greedy)) { snapshots += 1 }
        }
        #expect(snapshots > 10)
        #expect(!session.isResponding)
    }

    /// Guided generation that runs short of the window: the constrained decoder would close the
    /// document early to fit (a valid but cut answer); that is the same error.
    @Test func guidedAnswerThatFillsTheWindowThrows() async throws {
        let session = LanguageModelSession(model: try await SmolLM2.model(contextSize: 160))
        let schema = try GenerationSchema(root: DynamicGenerationSchema(name: "Story", properties: [
            .init(name: "title", schema: .init(type: String.self)), .init(name: "story", schema: .init(type: String.self)),
        ]), dependencies: [])
        do {
            let response = try await session.respond(to: Self.prompt, schema: schema, options: GenerationOptions(samplingMode: .greedy))
            Issue.record("the guided answer was closed early without an error: \(response.usage.output.totalTokenCount) tokens, \(response.rawContent.jsonString)")
        } catch let LanguageModelError.contextSizeExceeded(exceeded) {
            #expect(exceeded.contextSize == 160 && exceeded.tokenCount > 160)
        }
        #expect(session.transcript.isEmpty && !session.isResponding)
    }

    /// A limit the caller set (`maximumResponseTokens`) inside the window is not an error: the
    /// answer stops there, as asked.
    @Test func callerLimitInsideTheWindowIsNoError() async throws {
        let session = LanguageModelSession(model: try await SmolLM2.model(contextSize: Self.contextSize))
        let response = try await session.respond(to: Self.prompt, options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 20))
        #expect(response.usage.output.totalTokenCount == 20)
    }
}
