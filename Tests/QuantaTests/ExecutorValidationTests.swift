// The local executor, driven without a session, rejects what the session rejects, with the same
// errors (the rules are written once, in RequestValidation.swift). Time cap: 5 s (SmolLM2 loads;
// nothing is generated).
import Foundation
import Testing
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

@Suite struct ExecutorValidationTests {
    static let smolLM = PerplexityReference.root.appendingPathComponent("Models/SmolLM2-135M-Instruct.Q4_1.gguf")

    private func respond(_ model: LocalLanguageModel, options: GenerationOptions, context: ContextOptions = ContextOptions()) async throws {
        let executor = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        let request = LanguageModelExecutorGenerationRequest(
            transcript: Transcript(entries: [.prompt(.init(segments: [.text(.init(content: "hello"))]))]),
            generationOptions: options, contextOptions: context)
        try await executor.respond(to: request, model: model, streamingInto: LanguageModelExecutorGenerationChannel())
    }

    @Test func directRequestsMeetTheSessionsRules() async throws {
        let model = try await LocalLanguageModel(contentsOf: Self.smolLM)
        await #expect(throws: InvalidGenerationOptionsError.self) {
            try await respond(model, options: GenerationOptions(maximumResponseTokens: 0))
        }
        do {
            try await respond(model, options: GenerationOptions(maximumResponseTokens: 4), context: ContextOptions(reasoningLevel: .light))
            Issue.record("a reasoning level on a model without think markers was accepted")
        } catch let LanguageModelError.unsupportedCapability(error) {
            #expect(error.capability == .reasoning)
            let session = LanguageModelSession(model: model)
            do {
                _ = try await session.respond(to: "hello", contextOptions: ContextOptions(reasoningLevel: .light))
                Issue.record("the session accepted it")
            } catch let LanguageModelError.unsupportedCapability(sessionError) {
                #expect(sessionError.debugDescription == error.debugDescription)
            }
        }
    }
}
