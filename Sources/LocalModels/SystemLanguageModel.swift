// Apple's `SystemLanguageModel`, spelled as in FM27, over a GGUF file on this machine: the
// "system" model is whatever file `QUANTA_MODEL` names, or the catalog's default model in the
// user's data folder. It loads the file on first use and delegates to `LocalLanguageModel`.
import LanguageModelAPI
import Foundation
import GGUF
import Observation
import Synchronization

/// The model FM27 code gets by default (`SystemLanguageModel.default`, or a session created
/// without a model): a GGUF file resolved from the environment, loaded on first use.
///
/// Where the file is, in order:
/// 1. `QUANTA_MODEL`: the path of a GGUF file;
/// 2. otherwise the catalog's default model (`SmolLM2-135M-Instruct.Q4_1.gguf`) in
///    `$XDG_DATA_HOME/quanta/models` (`~/.local/share/quanta/models` when `XDG_DATA_HOME` is unset),
///    where `Models/fetch --user default` puts it.
///
/// With no file there, `availability` is `.unavailable(.modelNotReady)` and every request (and
/// `tokenCount(for:)`) throws `SystemLanguageModel.Error.assetsUnavailable`. Models of the same
/// file share one load (and the weights are shared process-wide, as for `LocalLanguageModel`).
/// The use case and guardrails are recorded but change nothing: every instance runs the same
/// file, and Quanta has no content guardrails.
final public class SystemLanguageModel: Sendable {
    /// The use case it was created for (no effect on generation).
    let useCase: UseCase
    /// The guardrails it was created with (no effect on generation).
    let guardrails: Guardrails
    /// Where its file is.
    let location: Location
    /// The file's facts and load, shared by every model of the same path.
    let slot: Slot
    let registrar = ObservationRegistrar()
    /// The availability observers last read.
    private let reported = Mutex<Availability?>(nil)

    /// The model of the file `environment` names (see the type's documentation).
    init(environment: [String: String], useCase: UseCase = .general, guardrails: Guardrails = .default) {
        self.useCase = useCase
        self.guardrails = guardrails
        location = Location(environment: environment)
        slot = Slot.shared(for: location.url)
    }

    /// The system model, resolved from the process environment when first used.
    public static var `default`: SystemLanguageModel { shared }
    private static let shared = SystemLanguageModel(environment: ProcessInfo.processInfo.environment)

    /// The same model as `default` (the file is resolved from the environment again); the use
    /// case and guardrails change nothing in Quanta.
    public convenience init(useCase: UseCase = .general, guardrails: Guardrails = Guardrails.default) {
        self.init(environment: ProcessInfo.processInfo.environment, useCase: useCase, guardrails: guardrails)
    }

    /// `.available` when the file is there and reads as a GGUF model, else
    /// `.unavailable(.modelNotReady)`. Observable: observers are told when a request (or token
    /// count) finds it changed since it was last read.
    final public var availability: Availability {
        registrar.access(self, keyPath: \.availability)
        let now = currentAvailability
        reported.withLock { $0 = now }
        return now
    }

    var currentAvailability: Availability {
        slot.facts() == nil ? .unavailable(.modelNotReady) : .available
    }

    /// Tells `availability` observers when it differs from what they last read.
    private func noteAvailability() {
        let now = currentAvailability
        let changed = reported.withLock { last -> Bool in
            defer { last = now }
            return last != nil && last != now
        }
        if changed { registrar.withMutation(of: self, keyPath: \.availability) {} }
    }

    /// Whether `availability` is `.available`.
    final public var isAvailable: Bool { availability == .available }

    /// The file's `general.languages`, or English when the file does not say; empty without a file.
    final public var supportedLanguages: Set<Locale.Language> { slot.facts()?.languages ?? [] }

    /// Whether `locale`'s language is one of `supportedLanguages` (compared by language code).
    final public func supportsLocale(_ locale: Locale = Locale.current) -> Bool {
        guard let code = locale.language.languageCode else { return false }
        return supportedLanguages.contains { $0.languageCode == code }
    }

    /// The context window requests run in: min(4096, the file's trained length), as for a
    /// `LocalLanguageModel` loaded with default settings; 4096 without a file.
    final public var contextSize: Int { slot.facts()?.contextSize ?? 4096 }

    /// The loaded model, loading it first if needed; tells `availability` observers when the
    /// outcome changed it.
    /// - Throws: `Error.assetsUnavailable` when the file is missing or cannot be loaded.
    func localModel() async throws -> LocalLanguageModel {
        defer { noteAvailability() }
        return try await slot.load(location: location)
    }
}

extension SystemLanguageModel: Observable {}

// MARK: - Use case, guardrails, availability, errors

extension SystemLanguageModel {
    /// What the model is used for. Quanta runs the same model for every use case.
    public struct UseCase: Sendable, Equatable {
        let name: String
        /// General prompting.
        public static let general = UseCase(name: "general")
        /// Tagging and extracting content.
        public static let contentTagging = UseCase(name: "contentTagging")
    }

    /// Content guardrails. Quanta has none, so both values behave alike.
    public struct Guardrails: Sendable {
        let name: String
    }

    /// Whether the model can respond now.
    @frozen public enum Availability: Equatable, Sendable {
        /// Ready to respond.
        case available
        /// Cannot respond, with the reason.
        case unavailable(UnavailableReason)

        /// Why the model cannot respond. Quanta reports only `modelNotReady` (no model file);
        /// the other cases exist so FM27 code that switches over them compiles.
        public enum UnavailableReason: Equatable, Sendable, Hashable {
            /// The device cannot run the model.
            case deviceNotEligible
            /// Apple Intelligence is turned off.
            case appleIntelligenceNotEnabled
            /// The model file is not there (or is not a GGUF model).
            case modelNotReady
        }
    }

    /// Errors of the system model.
    public enum Error: LocalizedError {
        /// The model file is missing or cannot be loaded.
        case assetsUnavailable(AssetsUnavailable)

        /// What is missing.
        public struct AssetsUnavailable: Sendable {
            /// What is missing and how to provide it.
            public var debugDescription: String
            /// An explanation.
            public init(debugDescription: String) { self.debugDescription = debugDescription }
        }

        /// What went wrong, in one sentence.
        public var errorDescription: String? {
            switch self {
            case let .assetsUnavailable(a): return "The model is not available: \(a.debugDescription)."
            }
        }
    }
}

extension SystemLanguageModel.Guardrails {
    /// The default guardrails.
    public static let `default` = SystemLanguageModel.Guardrails(name: "default")
    /// Guardrails that allow transforming sensitive content the user supplied.
    public static let permissiveContentTransformations = SystemLanguageModel.Guardrails(name: "permissiveContentTransformations")
}

extension SystemLanguageModel.Error: CustomDebugStringConvertible {
    /// The explanation.
    public var debugDescription: String {
        switch self {
        case let .assetsUnavailable(a): return a.debugDescription
        }
    }
}

// MARK: - LanguageModel

extension SystemLanguageModel: LanguageModel {
    /// Guided generation and tool calling, and `.reasoning` when the file's vocabulary has
    /// `<think>` and `</think>` (once loaded, exactly the `LocalLanguageModel`'s capabilities).
    final public var capabilities: LanguageModelCapabilities {
        if let loaded = slot.loaded { return loaded.capabilities }
        return LoadedModel.capabilities(hasThinkMarkers: slot.facts()?.hasThinkMarkers == true)
    }

    /// The file (every session gets its own executor, and with it its own KV cache).
    final public var executorConfiguration: Executor.Configuration {
        Executor.Configuration(path: location.url.path)
    }

    /// Runs one session's requests: loads the model on the first one (throwing
    /// `Error.assetsUnavailable` without a file) and hands them to a `LocalLanguageModel.Executor`.
    public struct Executor: LanguageModelExecutor {
        public typealias Model = SystemLanguageModel

        /// The file's path.
        public struct Configuration: Hashable, Sendable {
            let path: String
        }

        private let inner = InnerExecutor()

        /// An executor; nothing is loaded or allocated until the first request.
        public init(configuration: Configuration) {}

        /// Prefills `transcript` when the model is loaded; otherwise starts loading it (a request
        /// made meanwhile waits for that load).
        public func prewarm(model: SystemLanguageModel, transcript: Transcript) {
            if let loaded = model.slot.loaded {
                (try? inner.executor(for: loaded))?.prewarm(model: loaded, transcript: transcript)
            } else {
                let location = model.location
                let slot = model.slot
                Task { _ = try? await slot.load(location: location) }
            }
        }

        /// Loads the model if needed, then runs the request on the local executor.
        public func respond(to request: LanguageModelExecutorGenerationRequest, model: SystemLanguageModel,
                            streamingInto channel: LanguageModelExecutorGenerationChannel) async throws {
            let loaded = try await model.localModel()
            try await inner.executor(for: loaded).respond(to: request, model: loaded, streamingInto: channel)
        }
    }

    /// The `LocalLanguageModel.Executor` of one `Executor`, made for the loaded model.
    final class InnerExecutor: Sendable {
        private let executor = Mutex<LocalLanguageModel.Executor?>(nil)

        func executor(for model: LocalLanguageModel) throws -> LocalLanguageModel.Executor {
            try executor.withLock { current in
                let configuration = model.executorConfiguration
                if let current, current.configuration == configuration { return current }
                let made = try LocalLanguageModel.Executor(configuration: configuration)
                current = made
                return made
            }
        }
    }
}

// MARK: - Token counts

extension SystemLanguageModel {
    /// Input tokens a request would spend whose transcript is just this prompt.
    /// - Throws: `Error.assetsUnavailable` without a model file.
    final public func tokenCount(for prompt: some PromptRepresentable) async throws -> Int {
        try await localModel().tokenCount(for: prompt)
    }

    /// Tokens these instructions take as the system message.
    final public func tokenCount(for instructions: Instructions) async throws -> Int {
        try await localModel().tokenCount(for: instructions)
    }

    /// Tokens the definitions of these tools take in the prompt.
    final public func tokenCount(for tools: [any Tool]) async throws -> Int {
        try await localModel().tokenCount(for: tools)
    }

    /// Tokens the schema's prompt text takes.
    final public func tokenCount(for schema: GenerationSchema) async throws -> Int {
        try await localModel().tokenCount(for: schema)
    }

    /// Input tokens a request would spend whose transcript is `transcriptEntries`.
    final public func tokenCount(for transcriptEntries: some Collection<Transcript.Entry>) async throws -> Int {
        try await localModel().tokenCount(for: transcriptEntries)
    }
}

// MARK: - Where the file is, and what it says

extension SystemLanguageModel {
    /// The file of the catalog's default model (Models/catalog.json's `default`; a test checks
    /// that they agree).
    static let defaultModelFileName = "SmolLM2-135M-Instruct.Q4_1.gguf"

    /// Where the model file is, and why.
    struct Location: Sendable, Equatable {
        /// The GGUF file.
        let url: URL
        /// Whether `QUANTA_MODEL` named it (else it is the default model in the data folder).
        let fromEnvironment: Bool

        init(environment: [String: String]) {
            if let path = environment["QUANTA_MODEL"], !path.isEmpty {
                url = URL(fileURLWithPath: path)
                fromEnvironment = true
            } else {
                url = Self.modelsDirectory(environment).appendingPathComponent(SystemLanguageModel.defaultModelFileName)
                fromEnvironment = false
            }
        }

        /// `$XDG_DATA_HOME/quanta/models`, or `$HOME/.local/share/quanta/models` when
        /// `XDG_DATA_HOME` is unset or relative (which the XDG specification says to ignore).
        static func modelsDirectory(_ environment: [String: String]) -> URL {
            let dataHome: URL
            if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
                dataHome = URL(fileURLWithPath: xdg)
            } else {
                let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
                dataHome = URL(fileURLWithPath: home).appendingPathComponent(".local/share")
            }
            return dataHome.appendingPathComponent("quanta/models")
        }

        /// Why there is no model, and what to do about it.
        func missing(_ reason: String) -> SystemLanguageModel.Error {
            let hint = fromEnvironment
                ? "QUANTA_MODEL names \(url.path); point it at a GGUF file"
                : "set QUANTA_MODEL to a GGUF file, or run `Models/fetch --user default` to put the default model there"
            return .assetsUnavailable(.init(debugDescription: "\(reason) (\(hint))"))
        }
    }

    /// What the header of the file says, read without loading the weights.
    struct Facts: Sendable {
        /// min(4096, trained length): `LocalLanguageModel`'s default window.
        let contextSize: Int
        /// Whether the vocabulary has `<think>` and `</think>`.
        let hasThinkMarkers: Bool
        /// `general.languages`, or English.
        let languages: Set<Locale.Language>

        init(file: GGUFFile) throws {
            guard let architecture = file.architecture else { throw GGUFError.missingKey("general.architecture") }
            contextSize = LocalLanguageModel.contextSize(requested: nil, trained: try file.int("\(architecture).context_length"))
            let tokens = (try? file.strings("tokenizer.ggml.tokens")) ?? []
            hasThinkMarkers = tokens.contains("<think>") && tokens.contains("</think>")
            let declared = ((try? file.strings("general.languages")) ?? []).map { Locale.Language(identifier: $0) }
            languages = declared.isEmpty ? [Locale.Language(identifier: "en")] : Set(declared)
        }
    }

    /// One file's facts and loaded model, shared by every `SystemLanguageModel` of its path.
    /// Failures are not remembered: a file that appears later is found.
    final class Slot: Sendable {
        private struct State {
            var facts: Facts?
            var loaded: LocalLanguageModel?
            var loading: Task<LocalLanguageModel, any Swift.Error>?
        }

        private static let slots = Mutex<[String: Slot]>([:])

        /// The slot of `url`'s path.
        static func shared(for url: URL) -> Slot {
            slots.withLock { slots in
                if let slot = slots[url.path] { return slot }
                let slot = Slot(url: url)
                slots[url.path] = slot
                return slot
            }
        }

        let url: URL
        private let state = Mutex(State())

        private init(url: URL) { self.url = url }

        /// The file's facts; nil when it is missing or not a GGUF model. A loaded model keeps its
        /// facts even if the file goes.
        func facts() -> Facts? {
            let exists = FileManager.default.fileExists(atPath: url.path)
            let (known, loaded) = state.withLock { ($0.facts, $0.loaded != nil) }
            if let known, exists || loaded { return known }
            guard exists, let facts = try? Facts(file: GGUFFile(path: url.path)) else { return nil }
            state.withLock { $0.facts = facts }
            return facts
        }

        /// The model, once loaded.
        var loaded: LocalLanguageModel? { state.withLock { $0.loaded } }

        /// Loads the model (one load at a time per file), with the window `facts` give.
        func load(location: Location) async throws -> LocalLanguageModel {
            if let loaded { return loaded }
            let task = state.withLock { s -> Task<LocalLanguageModel, any Swift.Error> in
                if let loading = s.loading { return loading }
                let loading = Task { try await self.open(location) }
                s.loading = loading
                return loading
            }
            do {
                let model = try await task.value
                state.withLock { $0.loaded = model }
                return model
            } catch {
                state.withLock { s in if s.loading == task { s.loading = nil } }
                throw error
            }
        }

        private func open(_ location: Location) async throws -> LocalLanguageModel {
            guard FileManager.default.fileExists(atPath: url.path) else { throw location.missing("no model file at \(url.path)") }
            guard facts() != nil else { throw location.missing("\(url.path) is not a GGUF model Quanta can read") }
            do {
                // The default configuration's window is the `contextSize` the facts report.
                return try await LocalLanguageModel(contentsOf: url)
            } catch {
                throw location.missing("\(url.path) could not be loaded: \(error)")
            }
        }
    }
}
