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
    /// `maxBatch` are split.
    func forward(_ tokens: [Int32], state: ForwardState, logitRows: Range<Int>) -> Matrix?
    /// A fresh state for sequences of up to `contextSize` tokens, prefilled `maxBatch` at a time,
    /// with the KV cache stored as `kvFormat`.
    func makeState(contextSize: Int, maxBatch: Int, kvFormat: KVCacheFormat) -> ForwardState
}

extension CausalLanguageModel {
    /// A fresh state with an fp16 KV cache.
    public func makeState(contextSize: Int, maxBatch: Int) -> ForwardState {
        makeState(contextSize: contextSize, maxBatch: maxBatch, kvFormat: .f16)
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

/// Per-sequence mutable state: the KV cache and the activation buffers of one forward pass.
public final class ForwardState: @unchecked Sendable {
    public let cache: KVCache
    public let maxBatch: Int
    /// Threads the forward pass may use.
    public var threads: Int = 1
    /// Named activation buffers, allocated once (see each architecture for shapes).
    var buffers: [String: Matrix] = [:]
    /// Buffer lists passed together (Q/K/V, gate/up outputs), built once.
    var groups: [String: [Matrix]] = [:]
    /// Logits matrices by (rows, scratch) key (see `logitsBuffer`).
    var logits: [Int: Matrix] = [:]
    /// Positions of the current batch, reused so a decode step does not allocate.
    var positions: [Int] = []
    /// Attention score scratch.
    var scores: [Float] = []
    /// Quantized activations of the current matmul input.
    let matmulScratch: MatmulScratch

    /// `widestInput` is the largest matmul input length of the model.
    init(cache: KVCache, maxBatch: Int, widestInput: Int) {
        self.cache = cache
        self.maxBatch = maxBatch
        matmulScratch = MatmulScratch(maxRows: maxBatch, maxK: widestInput)
    }

    /// The buffer `name` of shape `[maxBatch][columns]`, allocated on first use.
    func buffer(_ name: String, columns: Int) -> Matrix {
        if let m = buffers[name] { return m }
        let m = Matrix(rows: maxBatch, columns: columns)
        buffers[name] = m
        return m
    }

    /// The buffer list `name`, made by `make` on first use (its buffers must not change).
    func group(_ name: String, _ make: () -> [Matrix]) -> [Matrix] {
        if let g = groups[name] { return g }
        let g = make()
        groups[name] = g
        return g
    }

    /// Bytes held by the KV cache and the activation buffers.
    public var memoryBytes: Int { cache.memoryBytes + (Array(buffers.values) + Array(logits.values)).reduce(0) { $0 + $1.rows * $1.columns * 4 } }
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

/// Constructors keyed by `general.architecture`.
let architectureRegistry: [String: @Sendable (GGUFFile, WeightMode) throws(ModelError) -> any CausalLanguageModel] = [
    "llama": { file, mode throws(ModelError) in try Llama(file: file, weights: mode) },
    "gemma3": { file, mode throws(ModelError) in try Gemma3(file: file, weights: mode) },
]

/// Builds the model a GGUF file describes. Afterwards the file's mapped pages are dropped from
/// the resident set (the model holds repacked copies; embedding rows and metadata read later
/// are paged in again on access), so the process does not hold the model twice.
public func loadModel(_ file: GGUFFile, weights: WeightMode = .native) throws(ModelError) -> any CausalLanguageModel {
    let arch = file.architecture ?? "(none)"
    guard let make = architectureRegistry[arch] else { throw .unsupportedArchitecture(arch) }
    let model = try make(file, weights)
    file.releaseResidentPages()
    return model
}
