import Engine

/// The activation buffers of one forward step, each `[maxBatch][width]` fp32, allocated once per
/// state so decoding does not allocate (llama2.c's `RunState`). Every family uses the same set.
final class Activations {
    /// Residual stream, `[batch][embedding]`.
    let x: Matrix
    /// Normalised input of a sub-block, `[batch][embedding]` (also the head's input).
    let xn: Matrix
    /// Queries `[batch][heads·headDim]`, keys and values `[batch][kvHeads·headDim]`.
    let q: Matrix, k: Matrix, v: Matrix
    /// Attention output before Wo, `[batch][heads·headDim]`.
    let attended: Matrix
    /// A sub-block's output before the residual add (Wo or the down projection), `[batch][embedding]`.
    let projected: Matrix
    /// Gate and up projections of the FFN, `[batch][feedForward]`; the activation lands in `gate`.
    let gate: Matrix, up: Matrix
    /// The batch rows whose logits were asked for, gathered to the top, `[batch][embedding]`.
    let selected: Matrix
    /// `[q, k, v]` and `[gate, up]`, the outputs of the projections that share one input.
    let qkv: [Matrix], gateUp: [Matrix]

    init(_ hp: Hyperparameters, maxBatch n: Int) {
        x = Matrix(rows: n, columns: hp.embedding)
        xn = Matrix(rows: n, columns: hp.embedding)
        q = Matrix(rows: n, columns: hp.heads * hp.headDim)
        k = Matrix(rows: n, columns: hp.kvHeads * hp.headDim)
        v = Matrix(rows: n, columns: hp.kvHeads * hp.headDim)
        attended = Matrix(rows: n, columns: hp.heads * hp.headDim)
        projected = Matrix(rows: n, columns: hp.embedding)
        gate = Matrix(rows: n, columns: hp.feedForward)
        up = Matrix(rows: n, columns: hp.feedForward)
        selected = Matrix(rows: n, columns: hp.embedding)
        qkv = [q, k, v]
        gateUp = [gate, up]
    }

    var all: [Matrix] { [x, xn, q, k, v, attended, projected, gate, up, selected] }

    /// One-row views of q, k, v and attended, `[maxBatch]` each, made on first use: the
    /// one-row parts of a batch of several sequences (a decoded token each) take these, so a
    /// decode step makes no views.
    private(set) lazy var rowViews: (q: [Matrix], k: [Matrix], v: [Matrix], attended: [Matrix]) = {
        let n = q.rows
        return ((0..<n).map { Matrix(row: $0, of: q) }, (0..<n).map { Matrix(row: $0, of: k) },
                (0..<n).map { Matrix(row: $0, of: v) }, (0..<n).map { Matrix(row: $0, of: attended) })
    }()
}

/// Per-sequence mutable state: the KV cache, the activation buffers of one forward pass and the
/// execution context its ops run on.
public final class ForwardState: @unchecked Sendable {
    public let cache: KVCache
    public let maxBatch: Int
    /// Threads, kernel path and matmul scratch of every op of this state's forward passes (set
    /// `context.threads` / `context.path` to change them).
    public let context: ExecutionContext
    /// The step's activations.
    let activations: Activations
    /// Logits matrices by (rows, scratch) key (see `logitsBuffer`).
    var logits: [Int: Matrix] = [:]
    /// The logits of batches of several sequences (see `batchLogitsBuffer`).
    private var batchLogits: Matrix?
    /// Positions of the current batch, reused so a decode step does not allocate.
    var positions: [Int] = []
    /// The sequences of a batch that holds several, in row order (empty: the batch is this
    /// state's sequence).
    var segments: [RowSegment] = []
    /// Per-row scale factors of the current batch (attention temperature), reused likewise.
    var rowFactors: [Float] = []
    /// Attention score scratch.
    var scores: [Float] = []
    /// The rope angles of the current batch, shared by its layers.
    let ropeAngles = RopeAngleCache()

    init(cache: KVCache, maxBatch: Int, hyperparameters hp: Hyperparameters) {
        self.cache = cache
        self.maxBatch = maxBatch
        activations = Activations(hp, maxBatch: maxBatch)
        context = ExecutionContext(maxRows: maxBatch, maxK: max(hp.embedding, hp.heads * hp.headDim, hp.feedForward))
    }

    /// Bytes held by the KV cache and the activation buffers.
    public var memoryBytes: Int {
        cache.memoryBytes + (activations.all + Array(logits.values) + (batchLogits.map { [$0] } ?? []))
            .reduce(0) { $0 + $1.rows * $1.columns * 4 }
    }

    /// The logits matrix of a batch of several sequences: one buffer, grown to the most rows
    /// asked so far (a buffer per row count would hold up to n² / 2 rows of the vocabulary).
    func batchLogitsBuffer(rows: Int, vocabulary: Int) -> Matrix {
        if let m = batchLogits, m.rows >= rows { return m }
        let m = Matrix(rows: rows, columns: vocabulary)
        batchLogits = m
        return m
    }

    /// A logits matrix of exactly `rows` rows, kept for reuse (decode asks for 1 row every token).
    /// The returned matrix is overwritten by the next forward call on this state.
    func logitsBuffer(rows: Int, vocabulary: Int, scratch: Bool = false) -> Matrix {
        let key = rows * 2 + (scratch ? 1 : 0)
        if let m = logits[key] { return m }
        let m = Matrix(rows: rows, columns: vocabulary)
        logits[key] = m
        return m
    }
}

/// The ops of one batch bound to its state: the batch's rows and positions and the state's
/// execution context, so blocks call `c.linear(a.xn, w, into: a.q)` instead of passing them each
/// time. Every op a block runs goes through here.
struct StepContext {
    let state: ForwardState
    /// Rows of this batch (the first `rows` rows of every activation are live).
    let rows: Int
    /// Absolute position of each row.
    let positions: [Int]
    /// Whether the rows are prompt rows or decoded tokens (which attention kernel they take).
    let kind: RowKind
    /// The sequences when the batch holds several (`state.segments`); empty: every row is
    /// `state.cache`'s sequence.
    var segments: [RowSegment] { state.segments }

    var a: Activations { state.activations }
    /// The context length of the batch's sequences (which LongRoPE's factors depend on).
    var contextSize: Int { segments.first?.cache.capacity ?? state.cache.capacity }
    var context: ExecutionContext { state.context }

    func rmsNorm(_ x: Matrix, _ weight: [Float], eps: Float, into y: Matrix) {
        Ops.rmsNorm(x, rows: rows, weight: weight, eps: eps, into: y, context: context)
    }

    func linear(_ x: Matrix, _ weight: WeightMatrix, into y: Matrix) {
        Ops.linear(x, rows: rows, weight: weight, into: y, context: context)
    }

    /// Several weights reading the same input (their activations are quantized once).
    func linear(_ x: Matrix, _ weights: [WeightMatrix], into ys: [Matrix]) {
        Ops.linear(x, rows: rows, weights: weights, into: ys, context: context)
    }

    func add(_ x: Matrix, into y: Matrix) { Ops.add(x, into: y, rows: rows, context: context) }

    func scale(_ x: Matrix, by s: Float) { Ops.scale(x, rows: rows, by: s, context: context) }

    /// x[r] *= factors[r] (a per-position scale).
    func scaleRows(_ x: Matrix, by factors: [Float]) { Ops.scaleRows(x, rows: rows, by: factors) }

    func addBias(_ bias: [Float]?, to x: Matrix) {
        if let bias { Ops.addBias(bias, to: x, rows: rows) }
    }

    func swiGLU(gate: Matrix, up: Matrix) { Ops.swiGLU(gate: gate, up: up, rows: rows, context: context) }

    func geGLU(gate: Matrix, up: Matrix) { Ops.geGLU(gate: gate, up: up, rows: rows, context: context) }

    func rope(_ x: Matrix, heads: Int, headDim: Int, _ rope: RopeParameters) {
        Ops.rope(x, rows: rows, positions: positions, heads: heads, headDim: headDim, rope: rope, angles: state.ropeAngles,
                 context: context)
    }

    /// Stores the batch's keys and values (`a.k`, `a.v`) at its positions in `layer` of the
    /// cache, or of each sequence's own cache.
    func storeKV(layer: Int) {
        guard !segments.isEmpty else {
            state.cache.store(layer: layer, keys: a.k, values: a.v, rows: rows, positions: positions, context: context)
            return
        }
        for s in segments {
            s.cache.store(layer: layer, keys: s.k, values: s.v, rows: s.k.rows, positions: s.positions, context: context)
        }
    }

    /// Causal attention of the batch's (scaled) queries `a.q` over `layer` of the cache into
    /// `a.attended`; with several sequences, each over its own cache with the bits of the call it
    /// makes alone (a prompt chunk, or one decoded row), all in one kernel call.
    func attention(layer: Int, heads: Int, headDim: Int, window: Int?) {
        guard !segments.isEmpty else {
            state.cache.attention(layer: layer, queries: a.q, rows: rows, positions: positions, heads: heads, headDim: headDim,
                                  window: window, kind: kind, into: a.attended, scratch: &state.scores, context: context)
            return
        }
        KVCache.attention(segments.map { KVCache.AttentionPart(cache: $0.cache, queries: $0.q, rows: $0.q.rows, positions: $0.positions,
                                                               kind: $0.kind, out: $0.attended) },
                          layer: layer, heads: heads, headDim: headDim, window: window, scratch: &state.scores, context: context)
    }
}

/// One sequence's rows in a batch of several: its cache, the rows' positions and kind, and views
/// of the batch's q, k, v and attended over its rows (made once per batch, used by every layer).
struct RowSegment {
    let cache: KVCache
    let positions: [Int]
    let kind: RowKind
    let q: Matrix, k: Matrix, v: Matrix, attended: Matrix

    /// Rows `rows` of `a`'s batch, at `positions`, for `cache`. A one-row segment takes the
    /// activations' cached row views (a decode step does not allocate views).
    init(cache: KVCache, rows: Range<Int>, positions: [Int], kind: RowKind, of a: Activations) {
        self.cache = cache
        self.positions = positions
        self.kind = kind
        if rows.count == 1 {
            let views = a.rowViews, r = rows.lowerBound
            (q, k, v, attended) = (views.q[r], views.k[r], views.v[r], views.attended[r])
        } else {
            (q, k, v, attended) = (Matrix(rows: rows, of: a.q), Matrix(rows: rows, of: a.k),
                                   Matrix(rows: rows, of: a.v), Matrix(rows: rows, of: a.attended))
        }
    }
}
