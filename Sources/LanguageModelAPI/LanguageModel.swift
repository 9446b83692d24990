// The provider surface, spelled as Apple's Foundation Models (FM27 `LanguageModel` /
// `LanguageModelExecutor`), so another backend can plug into `LanguageModelSession`.
import Foundation

/// A language model a `LanguageModelSession` can run: it declares what it can do and how to make
/// the executor that runs its requests. Models are immutable and shareable; per-session state
/// (KV cache, sampler) lives in the executor.
public protocol LanguageModel: Sendable {
    /// The executor type that runs this model's requests.
    associatedtype Executor: LanguageModelExecutor where Executor.Model == Self
    /// What the model supports; a session rejects requests that need anything else.
    var capabilities: LanguageModelCapabilities { get }
    /// How to build an executor (one per session). Holds no per-request data.
    var executorConfiguration: Executor.Configuration { get }
}

/// Runs generation requests for one model inside one session, streaming what it produces into a
/// channel. The executor may keep state between requests (Quanta keeps the KV cache).
public protocol LanguageModelExecutor: Sendable {
    /// Identity of the executor (equal configurations may share state).
    associatedtype Configuration: Hashable, Sendable
    /// The model type this executor runs.
    associatedtype Model: LanguageModel
    /// Builds an executor; expensive work should wait for the first request.
    init(configuration: Configuration) throws
    /// A hint that a request with this transcript is coming. It returns at once; any work it
    /// starts finishes before the next `respond` begins. The default does nothing.
    func prewarm(model: Model, transcript: Transcript)
    /// Runs one request: renders `request.transcript`, generates, and sends text, reasoning and
    /// usage events into `channel`. Returns when generation is complete; throws
    /// `LanguageModelError`s for requests it cannot serve and `CancellationError` on cancel.
    func respond(to request: LanguageModelExecutorGenerationRequest, model: Model,
                 streamingInto channel: LanguageModelExecutorGenerationChannel) async throws
}

extension LanguageModelExecutor {
    /// Does nothing.
    public func prewarm(model: Model, transcript: Transcript) {}
}

/// One request handed to an executor: the whole transcript (ending with the new prompt, or with
/// tool outputs in a tool loop), the tools the model may call, the schema its output must follow
/// and the options that govern it.
public struct LanguageModelExecutorGenerationRequest: Sendable, Equatable {
    /// Unique per request.
    public var id: UUID
    /// Everything so far.
    public var transcript: Transcript
    /// The tools the model may call (empty: none; `toolCallingMode` tells whether it must).
    public var enabledToolDefinitions: [Transcript.ToolDefinition]
    /// The shape the response must have (guided generation), or nil for free text.
    public var schema: GenerationSchema?
    /// Sampling, length limits and tool-calling policy of this request.
    public var generationOptions: GenerationOptions
    /// Reasoning level and other context controls of this request.
    public var contextOptions: ContextOptions
    /// Values the caller attached to the request.
    public var metadata: MetadataValues

    /// A request (Apple's spelling).
    public init(id: UUID, transcript: Transcript, enabledTools: [Transcript.ToolDefinition], schema: GenerationSchema? = nil,
                generationOptions: GenerationOptions, contextOptions: ContextOptions, metadata: MetadataValues) {
        self.id = id
        self.transcript = transcript
        enabledToolDefinitions = enabledTools
        self.schema = schema
        self.generationOptions = generationOptions
        self.contextOptions = contextOptions
        self.metadata = metadata
    }

    /// A request with a fresh id and defaults for everything but the transcript.
    public init(transcript: Transcript, generationOptions: GenerationOptions = GenerationOptions(),
                contextOptions: ContextOptions = ContextOptions()) {
        self.init(id: UUID(), transcript: transcript, enabledTools: [], generationOptions: generationOptions,
                  contextOptions: contextOptions, metadata: [:])
    }

    /// Field by field; schemas compare by their JSON Schema encoding, metadata by value.
    public static func == (a: Self, b: Self) -> Bool {
        a.id == b.id && a.transcript == b.transcript && a.enabledToolDefinitions == b.enabledToolDefinitions
            && a.generationOptions == b.generationOptions && a.contextOptions == b.contextOptions
            && metadataEqual(a.metadata, b.metadata) && sameSchema(a.schema, b.schema)
    }
}

/// Whether two optional schemas write the same JSON Schema document, the order of object keys
/// aside (two malformed schemas, which write none, are the same too).
func sameSchema(_ a: GenerationSchema?, _ b: GenerationSchema?) -> Bool {
    switch (a, b) {
    case (nil, nil): return true
    case let (x?, y?):
        switch (try? SchemaResolver.resolve(x), try? SchemaResolver.resolve(y)) {
        case (nil, nil): return true
        case let (p?, q?): return sameIgnoringKeyOrder(JSONSchemaWriter.document(p), JSONSchemaWriter.document(q))
        default: return false
        }
    default: return false
    }
}

/// Equal values, objects compared as sets of members.
private func sameIgnoringKeyOrder(_ a: GeneratedContent, _ b: GeneratedContent) -> Bool {
    switch (a.kind, b.kind) {
    case let (.array(x), .array(y)): return x.count == y.count && zip(x, y).allSatisfy { sameIgnoringKeyOrder($0, $1) }
    case let (.structure(x, _), .structure(y, _)):
        return x.count == y.count && x.allSatisfy { key, value in y[key].map { sameIgnoringKeyOrder(value, $0) } ?? false }
    default: return a.kind == b.kind
    }
}
