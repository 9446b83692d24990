import Engine
import GGUF

/// A loaded decoder-only transformer: immutable weights and hyper-parameters, shareable across
/// sessions. Per-sequence state (KV cache, activation buffers) lives in `ForwardState`.
public protocol CausalLanguageModel: AnyObject, Sendable {
    /// `general.architecture` of the file it came from.
    var architecture: String { get }
    var hyperparameters: Hyperparameters { get }
    /// Runs `tokens` at positions `state.cache.count ..< +tokens.count`, appends them to the
    /// cache and returns the logits `[logitRows.count][vocabulary]` of the batch rows in
    /// `logitRows` (relative to `tokens`; empty = none). Batches larger than the state's
    /// `maxBatch` are split. `rows` says what the tokens are: prompt rows give the same bits in
    /// any split into calls (a prompt prefilled whole or a token at a time), decoded ones the
    /// bits of `forward(batch:states:workspace:)`; the two kinds differ in the last bits.
    func forward(_ tokens: [Int32], state: ForwardState, logitRows: Range<Int>, rows: RowKind) -> Matrix?
    /// One decode step of several sequences as one batch (continuous batching): row r runs
    /// `tokens[r]` at position `states[r].cache.count` against that state's cache (appended to),
    /// and the matmuls run once at m = `tokens.count` rows in `workspace` (activations, execution
    /// context; its own cache is not used, see `makeWorkspace`). Returns the logits in rows
    /// `0..<m` of a `[workspace.maxBatch][vocabulary]` matrix, row r bit-identical to what
    /// `states[r]` decoding `tokens[r]` alone gives; overwritten by the workspace's next call.
    /// The states need one context length.
    func forward(batch tokens: [Int32], states: [ForwardState], workspace: ForwardState) -> Matrix
    /// A fresh state for sequences of up to `contextSize` tokens, prefilled `maxBatch` at a time,
    /// with the KV cache stored as `kvFormat`.
    func makeState(contextSize: Int, maxBatch: Int, kvFormat: KVCacheFormat) -> ForwardState
}

extension CausalLanguageModel {
    /// `forward(_:state:logitRows:rows:)` with the kind read from the count: one token is a
    /// decoded one, more are prompt rows. A caller that prefills a prompt in calls of any size
    /// (one token included) says `.prompt` itself.
    public func forward(_ tokens: [Int32], state: ForwardState, logitRows: Range<Int>) -> Matrix? {
        forward(tokens, state: state, logitRows: logitRows, rows: tokens.count == 1 ? .decoded : .prompt)
    }

    /// A fresh state with an fp16 KV cache.
    public func makeState(contextSize: Int, maxBatch: Int) -> ForwardState {
        makeState(contextSize: contextSize, maxBatch: maxBatch, kvFormat: .f16)
    }

    /// The activations and execution context for `forward(batch:states:workspace:)` of up to
    /// `sequences` rows (its KV cache holds one position, reserved lazily, and is never used).
    public func makeWorkspace(sequences: Int) -> ForwardState {
        makeState(contextSize: 1, maxBatch: sequences, kvFormat: .f16)
    }
}

/// The numbers that shape a model, read from `<arch>.*` GGUF keys.
public struct Hyperparameters: Sendable, Equatable {
    public var vocabulary: Int
    public var embedding: Int
    public var layers: Int
    public var heads: Int
    public var kvHeads: Int
    public var headDim: Int
    public var feedForward: Int
    public var trainedContext: Int
    public var rmsEps: Float
    public var ropeBase: Float
    /// Rotated dimensions per head (`rope.dimension_count`, default headDim).
    public var rotaryDims: Int
}

/// How matmul weights are held at load.
public enum WeightMode: Sendable, Equatable {
    /// As stored in the GGUF file (zero-copy, repacked for the kernels at load).
    case native
    /// Every matmul weight requantized at load into this format (`f32` is the OpenBLAS oracle
    /// path; the MX formats trade quality for size).
    case converted(WeightFormat)

    /// Parses a command-line spelling: `native` or a `WeightFormat` name (`f32`, `mxfp4`, ...).
    public init?(argument: String) {
        if argument == "native" { self = .native; return }
        guard let format = WeightFormat(rawValue: argument) else { return nil }
        self = .converted(format)
    }
}

/// A model family: how a GGUF whose `general.architecture` is `architecture` becomes a
/// `Decoder`. Adding a family is one file with one of these and a line in `modelFamilies`.
protocol ModelFamily: Sendable {
    /// The `general.architecture` value it reads.
    static var architecture: String { get }
    static func load(_ w: WeightLoader) throws(ModelError) -> Decoder
}

/// Every family this package runs.
let modelFamilies: [any ModelFamily.Type] = [
    Llama.self,
    Gemma3.self,
    Qwen2.self,
    Qwen3.self,
    Phi3.self,
    Granite.self,
    Mistral3.self,
]

/// Builds the model a GGUF file describes. Afterwards the file's mapped pages are dropped from
/// the resident set (the model holds repacked copies; embedding rows and metadata read later
/// are paged in again on access), so the process does not hold the model twice.
public func loadModel(_ file: GGUFFile, weights: WeightMode = .native) throws(ModelError) -> any CausalLanguageModel {
    let arch = file.architecture ?? "(none)"
    guard let family = modelFamilies.first(where: { $0.architecture == arch }) else { throw .unsupportedArchitecture(arch) }
    let model = try family.load(WeightLoader(file: file, arch: arch, mode: weights))
    file.releaseResidentPages()
    return model
}
