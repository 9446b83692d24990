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
    /// One forward pass over several sequences' rows as one batch (continuous batching): each
    /// part runs its tokens at positions `state.cache.count ..< +tokens.count` against its own
    /// state's cache (appended to), while the matmuls run once over every part's rows in
    /// `workspace` (activations, execution context; its own cache is not used, see
    /// `makeWorkspace`). Returns, for each part that asks (`wantsLogits`), the logits of its last
    /// row, in the order of the parts, as the top rows of a matrix that the workspace's next call
    /// overwrites. Each part's logits and cache rows are bit-identical to what its state gets
    /// running the same tokens alone with the same kind (`forward(_:state:logitRows:rows:)`):
    /// every op but attention computes each row independently of the others, and attention runs
    /// part by part with the call a lone pass makes. The states need one context length; a part
    /// holds at most its state's `maxBatch` tokens, all parts together at most the workspace's.
    func forward(_ parts: [SequenceRows], workspace: ForwardState) -> Matrix
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

    /// One decode step of several sequences: row r runs `tokens[r]` as a decoded token of
    /// `states[r]` (`forward(_:workspace:)` with one part per state); row r of the result holds
    /// its logits.
    public func forward(batch tokens: [Int32], states: [ForwardState], workspace: ForwardState) -> Matrix {
        precondition(tokens.count == states.count, "\(tokens.count) tokens for \(states.count) states")
        return forward(zip(tokens, states).map { SequenceRows(state: $1, tokens: [$0], kind: .decoded, wantsLogits: true) },
                       workspace: workspace)
    }

    /// A fresh state with an fp16 KV cache.
    public func makeState(contextSize: Int, maxBatch: Int) -> ForwardState {
        makeState(contextSize: contextSize, maxBatch: maxBatch, kvFormat: .f16)
    }

    /// The activations and execution context for batched passes (`forward(_:workspace:)`) of up
    /// to `rows` rows in all (its KV cache holds one position, reserved lazily, and is never used).
    public func makeWorkspace(rows: Int) -> ForwardState {
        makeState(contextSize: 1, maxBatch: rows, kvFormat: .f16)
    }
}

/// One sequence's part of a batched forward pass (`CausalLanguageModel.forward(_:workspace:)`).
public struct SequenceRows {
    /// The sequence: its cache receives the rows, its context length bounds them.
    public let state: ForwardState
    /// Tokens run at the next positions of the sequence (at most `state.maxBatch`).
    public let tokens: [Int32]
    /// Prompt rows or a decoded token: which attention kernel the rows take.
    public let kind: RowKind
    /// Whether the logits of the last row are returned.
    public let wantsLogits: Bool

    public init(state: ForwardState, tokens: [Int32], kind: RowKind, wantsLogits: Bool) {
        self.state = state
        self.tokens = tokens
        self.kind = kind
        self.wantsLogits = wantsLogits
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
