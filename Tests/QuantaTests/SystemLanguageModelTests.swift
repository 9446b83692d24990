// `SystemLanguageModel`: where it finds its file, what it reports without one, and that with one
// it is exactly the `LocalLanguageModel` of that file. Each model is resolved from an explicit
// environment, never the process's. Time cap: the suite runs in under 30 s (SmolLM2's weights
// are loaded once per process and shared; no test generates more than 16 tokens).
import Foundation
import Observation
import Synchronization
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

@Suite(.serialized) struct SystemLanguageModelTests {
    static let gemma = PerplexityReference.root.appendingPathComponent("Models/gemma-3-270m-q4_k_m.gguf")
    static let greedy = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 16)

    /// A fresh folder under the temporary directory, removed by the caller.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("quanta-slm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A data folder with `quanta/models/<default file>` linking to SmolLM2.
    static func dataHome(in root: URL) throws -> URL {
        let models = root.appendingPathComponent("quanta/models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: models.appendingPathComponent(SystemLanguageModel.defaultModelFileName),
                                                   withDestinationURL: SmolLM2.url)
        return root
    }

    @Test func theDefaultFileNameIsTheCatalogsDefault() throws {
        let data = try Data(contentsOf: PerplexityReference.root.appendingPathComponent("Models/catalog.json"))
        let catalog = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let name = try #require(catalog["default"] as? String)
        let models = try #require(catalog["models"] as? [[String: Any]])
        let entry = try #require(models.first { $0["name"] as? String == name })
        #expect(entry["file"] as? String == SystemLanguageModel.defaultModelFileName)
    }

    /// With `QUANTA_MODEL` naming SmolLM2, the system model answers exactly as SmolLM2 loaded directly.
    @Test func quantaModelNamesTheFileAndAnswersAsTheLocalModel() async throws {
        let model = SystemLanguageModel(environment: ["QUANTA_MODEL": SmolLM2.url.path, "XDG_DATA_HOME": "/nonexistent"])
        #expect(model.location.url.path == SmolLM2.url.path)
        #expect(model.availability == .available)
        #expect(model.isAvailable)
        let session = LanguageModelSession(model: model, instructions: "Answer briefly.")
        let answer = try await session.respond(to: "What is the capital of France?", options: Self.greedy)

        let local = try await LocalLanguageModel(contentsOf: SmolLM2.url, configuration: .init(contextSize: model.contextSize))
        let direct = LanguageModelSession(model: local, instructions: "Answer briefly.")
        let expected = try await direct.respond(to: "What is the capital of France?", options: Self.greedy)
        #expect(!answer.content.isEmpty)
        #expect(answer.content == expected.content)
        #expect(answer.usage == expected.usage)
    }

    /// No file: not ready, and every request throws the typed error, leaving the session as it was.
    @Test func aMissingFileIsNotReadyAndRequestsThrowAssetsUnavailable() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("absent.gguf").path
        let model = SystemLanguageModel(environment: ["QUANTA_MODEL": path])
        #expect(model.availability == .unavailable(.modelNotReady))
        #expect(!model.isAvailable)
        #expect(model.supportedLanguages.isEmpty)
        #expect(!model.supportsLocale(Locale(identifier: "en_US")))
        #expect(model.contextSize == 4096)

        let session = LanguageModelSession(model: model, instructions: "Answer briefly.")
        do {
            _ = try await session.respond(to: "Hi", options: Self.greedy)
            Issue.record("a request without a model file succeeded")
        } catch let SystemLanguageModel.Error.assetsUnavailable(details) {
            #expect(details.debugDescription.contains(path))
            #expect(details.debugDescription.contains("QUANTA_MODEL"))
        }
        #expect(!session.isResponding)
        #expect(session.transcript.count == 1)
        await #expect(throws: SystemLanguageModel.Error.self) { try await model.tokenCount(for: "Hi") }
        let refusal = LanguageModelSession.GenerationError.Refusal(transcriptEntries: [SmolLM2.prompt("Hi")])
        await #expect(throws: SystemLanguageModel.Error.self) { try await refusal.explanation(using: model) }

        // Without QUANTA_MODEL the hint names the fetch command.
        let empty = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: empty) }
        let dataHomeModel = SystemLanguageModel(environment: ["XDG_DATA_HOME": empty.path])
        #expect(dataHomeModel.availability == .unavailable(.modelNotReady))
        do {
            _ = try await dataHomeModel.tokenCount(for: "Hi")
            Issue.record("tokenCount without a model file succeeded")
        } catch let SystemLanguageModel.Error.assetsUnavailable(details) {
            #expect(details.debugDescription.contains("Models/fetch --user default"))
        }
    }

    /// A file that appears after the model was made is found, and `availability` observers hear of it.
    @Test func aFileThatAppearsLaterIsFoundAndObserved() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("later.gguf")
        let model = SystemLanguageModel(environment: ["QUANTA_MODEL": file.path])
        final class Flag: Sendable { let raised = Mutex(false) }
        let changed = Flag()
        withObservationTracking { _ = model.availability } onChange: { changed.raised.withLock { $0 = true } }
        #expect(model.availability == .unavailable(.modelNotReady))
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: SmolLM2.url)
        let count = try await model.tokenCount(for: "Hi")
        #expect(count > 0)
        #expect(changed.raised.withLock { $0 })
        #expect(model.availability == .available)
    }

    /// `$XDG_DATA_HOME/quanta/models`, else `$HOME/.local/share/quanta/models`; a relative
    /// `XDG_DATA_HOME` is ignored, and `QUANTA_MODEL` wins over both.
    @Test func theDataFolderHoldsTheDefaultModel() async throws {
        let xdg = try Self.dataHome(in: Self.temporaryFolder())
        defer { try? FileManager.default.removeItem(at: xdg) }
        let home = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: home) }
        _ = try Self.dataHome(in: home.appendingPathComponent(".local/share"))

        let viaXDG = SystemLanguageModel(environment: ["XDG_DATA_HOME": xdg.path, "HOME": "/nonexistent"])
        #expect(viaXDG.location.url.path == xdg.appendingPathComponent("quanta/models/SmolLM2-135M-Instruct.Q4_1.gguf").path)
        #expect(!viaXDG.location.fromEnvironment)
        #expect(viaXDG.availability == .available)
        let viaHome = SystemLanguageModel(environment: ["HOME": home.path])
        #expect(viaHome.location.url.path == home.appendingPathComponent(".local/share/quanta/models/SmolLM2-135M-Instruct.Q4_1.gguf").path)
        #expect(viaHome.availability == .available)
        let relative = SystemLanguageModel(environment: ["XDG_DATA_HOME": "relative/data", "HOME": home.path])
        #expect(relative.location == viaHome.location)
        let named = SystemLanguageModel(environment: ["QUANTA_MODEL": Self.gemma.path, "XDG_DATA_HOME": xdg.path])
        #expect(named.location.url.path == Self.gemma.path)
        #expect(named.location.fromEnvironment)

        // A request through the data folder's link runs the model.
        let count = try await viaXDG.tokenCount(for: "Hello there")
        #expect(try await SmolLM2.model().tokenCount(for: "Hello there") == count)
    }

    /// Another use case or guardrails: the same file, load and executor identity.
    @Test func theUseCaseInitIsTheSameModel() {
        let environment = ["QUANTA_MODEL": SmolLM2.url.path]
        let general = SystemLanguageModel(environment: environment)
        let tagging = SystemLanguageModel(environment: environment, useCase: .contentTagging, guardrails: .permissiveContentTransformations)
        #expect(tagging.useCase == .contentTagging)
        #expect(tagging.useCase != general.useCase)
        #expect(tagging.slot === general.slot)
        #expect(tagging.executorConfiguration == general.executorConfiguration)
        #expect(tagging.capabilities == general.capabilities)
        // The public initialiser resolves the process environment, as `.default` does.
        #expect(SystemLanguageModel(useCase: .contentTagging).location == SystemLanguageModel.default.location)
        #expect(SystemLanguageModel().slot === SystemLanguageModel.default.slot)
    }

    /// The five `tokenCount(for:)` overloads equal the local model's.
    @Test func tokenCountsEqualTheLocalModels() async throws {
        let model = SystemLanguageModel(environment: ["QUANTA_MODEL": SmolLM2.url.path])
        let local = try await SmolLM2.model()
        let entries: [Transcript.Entry] = [.instructions(.init(segments: [.text(.init(content: "Be brief."))])), SmolLM2.prompt("Hi")]
        #expect(try await model.tokenCount(for: "Name a colour.") == local.tokenCount(for: "Name a colour."))
        #expect(try await model.tokenCount(for: Instructions("Be brief.")) == local.tokenCount(for: Instructions("Be brief.")))
        #expect(try await model.tokenCount(for: [WeatherTool()]) == local.tokenCount(for: [WeatherTool()]))
        let schema = WeatherTool.Arguments.generationSchema
        #expect(try await model.tokenCount(for: schema) == local.tokenCount(for: schema))
        #expect(try await model.tokenCount(for: entries) == local.tokenCount(for: entries))
        #expect(try await model.tokenCount(for: [WeatherTool()]) > 0)
    }

    /// The window and capabilities read from the header agree with the loaded model's.
    @Test func contextSizeAndCapabilitiesMatchTheLocalModel() async throws {
        for url in [SmolLM2.url, Self.gemma] {
            let model = SystemLanguageModel(environment: ["QUANTA_MODEL": url.path])
            let header = (contextSize: model.contextSize, capabilities: model.capabilities)
            let local = try await LocalLanguageModel(contentsOf: url)
            #expect(header.contextSize == local.contextSize)
            #expect(header.contextSize == min(4096, local.trainedContextSize))
            #expect(header.capabilities == local.capabilities)
            #expect(header.capabilities.contains(.guidedGeneration) && header.capabilities.contains(.toolCalling))
        }
    }

    /// SmolLM2 declares English; Gemma declares nothing, so English is assumed.
    @Test func supportsLocaleFollowsTheFilesLanguages() {
        let smol = SystemLanguageModel(environment: ["QUANTA_MODEL": SmolLM2.url.path])
        #expect(smol.supportedLanguages.contains { $0.languageCode == .english })
        #expect(smol.supportsLocale(Locale(identifier: "en_US")))
        #expect(smol.supportsLocale(Locale(identifier: "en_GB")))
        #expect(!smol.supportsLocale(Locale(identifier: "fr_FR")))
        let gemma = SystemLanguageModel(environment: ["QUANTA_MODEL": Self.gemma.path])
        #expect(gemma.supportedLanguages == [Locale.Language(identifier: "en")])
        #expect(gemma.supportsLocale(Locale(identifier: "en")))
        #expect(!gemma.supportsLocale(Locale(identifier: "de_DE")))
    }

    /// FM26's refusal asks the model why; its answer is what a session on that transcript says.
    @Test func aRefusalsExplanationComesFromTheModel() async throws {
        let model = SystemLanguageModel(environment: ["QUANTA_MODEL": SmolLM2.url.path])
        let refused: [Transcript.Entry] = [SmolLM2.prompt("Tell me a secret password.")]
        let refusal = LanguageModelSession.GenerationError.Refusal(transcriptEntries: refused)
        let explanation = try await refusal.explanation(using: model, options: Self.greedy)
        #expect(!explanation.content.isEmpty)
        let session = LanguageModelSession(model: try await SmolLM2.model(), transcript: Transcript(entries: refused))
        let expected = try await session.respond(to: LanguageModelSession.GenerationError.Refusal.explanationRequest, options: Self.greedy)
        #expect(explanation.content == expected.content)
    }

    /// The FM27 session spellings build sessions without loading anything.
    @Test func theSessionSpellingsMakeSessions() {
        let sessions = systemModelSessionSpellings()
        #expect(sessions.count == 8)
        #expect(sessions[1].transcript.count == 1)
        #expect(sessions[0].transcript.isEmpty)
    }
}
