// The GGUF-backed model: what applications create and hand to `LanguageModelSession`.
import LanguageModelAPI
import Architectures
import Foundation

/// A GGUF model file run on this machine by Quanta's engine.
///
/// ```swift
/// let model = try await LocalLanguageModel(contentsOf: URL(fileURLWithPath: "SmolLM2.gguf"))
/// let session = LanguageModelSession(model: model, instructions: "Be brief.")
/// let answer = try await session.respond(to: "Name a colour.")
/// ```
///
/// Weights are shared process-wide per file: a second model of the same file (any context size)
/// reuses them, and concurrent loads of one file share a single load.
public struct LocalLanguageModel: LanguageModel {
    /// Settings chosen at load time.
    public struct Configuration: Sendable, Equatable {
        /// The context window in tokens; nil = min(4096, trained length). Never more than the
        /// trained length (larger values are clamped).
        public var contextSize: Int?
        /// Threads for the forward pass; nil = every online core.
        public var threads: Int?
        /// How matmul weights are held (as stored, or converted at load).
        public var weights: WeightFormat
        /// How the KV cache stores keys and values.
        public var kvCache: KVCacheType
        /// Sampler settings where a request's `GenerationOptions` say nothing.
        public var sampling: SamplingDefaults

        /// Settings; every nil means "default".
        public init(contextSize: Int? = nil, threads: Int? = nil, weights: WeightFormat = .native, kvCache: KVCacheType = .f16,
                    sampling: SamplingDefaults = SamplingDefaults()) {
            self.contextSize = contextSize
            self.threads = threads
            self.weights = weights
            self.kvCache = kvCache
            self.sampling = sampling
        }
    }

    /// The file the model was loaded from.
    public let url: URL
    /// The settings it was loaded with.
    public let configuration: Configuration
    /// The loaded file (network, tokenizer, chat template), shared by every model of it.
    package let loaded: LoadedModel

    /// Loads (or reuses) the GGUF file at `url`.
    /// - Throws: the GGUF, tokenizer, template or architecture error that stopped the load, or
    ///   `InvalidGenerationOptionsError` for sampling defaults or a KV cache type the model cannot use.
    public init(contentsOf url: URL, configuration: Configuration = Configuration()) async throws {
        self.url = url
        self.configuration = configuration
        if let reason = configuration.sampling.invalidReason { throw InvalidGenerationOptionsError(reason: reason) }
        loaded = try await LoadedModelStore.shared.model(path: url.path, mode: configuration.weights.mode)
        let headDim = loaded.network.hyperparameters.headDim
        guard configuration.kvCache.format.supports(headDim: headDim) else {
            throw InvalidGenerationOptionsError(reason: "the \(configuration.kvCache.rawValue) KV cache needs a head dimension that is a "
                                                + "multiple of 32; this model's is \(headDim)")
        }
    }

    /// The context window requests run in, in tokens (prompt and response together).
    public var contextSize: Int {
        Self.contextSize(requested: configuration.contextSize, trained: trainedContextSize)
    }

    /// The window a model trained with `trained` tokens runs in when `requested` (nil: the
    /// default, min(4096, trained)); never more than the trained length.
    static func contextSize(requested: Int?, trained: Int) -> Int {
        max(1, min(requested ?? min(4096, trained), trained))
    }

    /// The context length the model was trained with.
    public var trainedContextSize: Int { loaded.network.hyperparameters.trainedContext }

    /// `.reasoning` when the vocabulary has `<think>` and `</think>` tokens; nothing else yet.
    public var capabilities: LanguageModelCapabilities { loaded.capabilities }

    /// Always `.available`: the weights are loaded by `init`.
    public var availability: LanguageModelAvailability { .available }

    /// Whether the file came with a chat template (false: the plain format
    /// `ChatTemplate.plainSource` is used).
    public var hasChatTemplate: Bool { loaded.hasOwnTemplate }

    /// The file, the context window and the thread count (every session gets an executor).
    public var executorConfiguration: Executor.Configuration {
        Executor.Configuration(path: url.path, contextSize: contextSize,
                               threads: configuration.threads ?? ProcessInfo.processInfo.activeProcessorCount,
                               kvCache: configuration.kvCache, sampling: configuration.sampling)
    }

    /// Input tokens a request would spend whose transcript is just this prompt (template, BOS
    /// and generation prompt included).
    public func tokenCount(for prompt: some PromptRepresentable) async throws -> Int {
        try await tokenCount(for: [Transcript.Entry.prompt(.init(segments: [.text(prompt.promptRepresentation.text)]))])
    }

    /// Tokens these instructions take as the system message (template text included).
    public func tokenCount(for instructions: Instructions) async throws -> Int {
        try loaded.render([Transcript.Entry.instructions(.init(segments: [.text(instructions.text)]))],
                           addGenerationPrompt: false).tokens.count
    }

    /// Tokens the definitions of these tools take in the prompt.
    public func tokenCount(for tools: [any Tool]) async throws -> Int {
        let definitions = tools.map { Transcript.ToolDefinition(tool: $0) }
        let with = try loaded.render([Transcript.Entry.instructions(.init(segments: [], toolDefinitions: definitions))],
                                      addGenerationPrompt: false)
        let without = try loaded.render([Transcript.Entry.instructions(.init(segments: []))], addGenerationPrompt: false)
        return max(0, with.tokens.count - without.tokens.count)
    }

    /// Tokens the schema's prompt text takes (what `includeSchemaInPrompt` adds).
    public func tokenCount(for schema: GenerationSchema) async throws -> Int {
        loaded.tokenizer.encode(schema.schemaPromptText(), addSpecial: false, parseSpecial: false).count
    }

    /// Input tokens a request would spend whose transcript is `entries` (ending with its
    /// prompt): exactly `usage.input.totalTokenCount` of that request.
    public func tokenCount(for transcriptEntries: some Collection<Transcript.Entry>) async throws -> Int {
        try promptTokens(for: transcriptEntries).count
    }

    /// The tokens of a request whose transcript is `entries` (ending with its prompt), as its
    /// chat template renders them.
    public func promptTokens(for transcriptEntries: some Collection<Transcript.Entry>) throws -> [Int32] {
        try loaded.render(transcriptEntries).tokens
    }

    /// What the batcher of this model's file, thread count and window has run (every session,
    /// completion and server slot of this configuration shares it): decode steps, their rows,
    /// prefill batches and tokens.
    package var batching: DecodeBatcher.Totals {
        loaded.batcher(threads: executorConfiguration.threads, contextSize: contextSize).runSoFar
    }

    /// Forgets the process-wide cached load of `url`, so the next load reads the file again.
    public static func evictCachedWeights(contentsOf url: URL) async {
        await LoadedModelStore.shared.evict(path: url.path)
    }
}
