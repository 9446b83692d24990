// FM27 code that uses the system model, as an app would write it: it must compile. Making the
// sessions loads nothing, so `systemModelSessionSpellings()` is run by a test; the model
// members would load (or fail on) whatever file the process environment names, so
// `systemModelMemberSpellings` is never called.
import Foundation
import Observation
import Quanta

/// Sessions on the system model, in each FM27 spelling.
func systemModelSessionSpellings() -> [LanguageModelSession] {
    let tool = WeatherTool()
    return [
        LanguageModelSession(),
        LanguageModelSession(instructions: "x"),
        LanguageModelSession { "x" },
        LanguageModelSession(model: .default),
        LanguageModelSession(model: .init(useCase: .contentTagging)),
        LanguageModelSession(tools: [tool], instructions: "x"),
        LanguageModelSession(model: .default, tools: [], transcript: Transcript()),
        LanguageModelSession(dynamicInstructions: EmptyDynamicInstructions()),
    ]
}

/// Every other FM27 `SystemLanguageModel` member. Never called.
func systemModelMemberSpellings(schema: GenerationSchema, entries: [Transcript.Entry]) async throws {
    let model = SystemLanguageModel.default
    let tagging = SystemLanguageModel(useCase: .contentTagging, guardrails: .permissiveContentTransformations)
    _ = SystemLanguageModel(useCase: .general)
    _ = SystemLanguageModel(guardrails: .default)
    let _: Bool = SystemLanguageModel.UseCase.general == .contentTagging
    switch model.availability {
    case .available: break
    case .unavailable(.deviceNotEligible), .unavailable(.appleIntelligenceNotEnabled): break
    case .unavailable(.modelNotReady): break
    }
    let reasons: Set<SystemLanguageModel.Availability.UnavailableReason> = [.modelNotReady]
    _ = reasons
    let _: Bool = model.isAvailable
    let _: Set<Locale.Language> = model.supportedLanguages
    let _: Bool = model.supportsLocale()
    let _: Bool = model.supportsLocale(Locale(identifier: "en_US"))
    let _: Int = model.contextSize
    let _: Int = try await model.tokenCount(for: "x")
    let _: Int = try await model.tokenCount(for: Instructions("x"))
    let _: Int = try await model.tokenCount(for: [WeatherTool()])
    let _: Int = try await model.tokenCount(for: schema)
    let _: Int = try await model.tokenCount(for: entries)
    let _: LanguageModelCapabilities = model.capabilities
    let configuration: SystemLanguageModel.Executor.Configuration = model.executorConfiguration
    let executor = SystemLanguageModel.Executor(configuration: configuration)
    executor.prewarm(model: model, transcript: Transcript())
    func observe(_ observable: some Observable) {}
    observe(model)

    let session = LanguageModelSession(model: tagging, instructions: Instructions("x"))
    do {
        _ = try await session.respond(to: "x")
    } catch let error as SystemLanguageModel.Error {
        switch error {
        case let .assetsUnavailable(details): _ = details.debugDescription
        }
        _ = error.errorDescription
        _ = error.debugDescription
    } catch let LanguageModelSession.GenerationError.refusal(refusal, _) {
        let _: LanguageModelSession.Response<String> = try await refusal.explanation
        for try await _ in refusal.explanationStream {}
    }
    _ = SystemLanguageModel.Error.assetsUnavailable(.init(debugDescription: "x"))
}
