import CKernels

/// The shape and operand formats of one matmul `y[m][n] (+)= x[m][k] · Wᵀ` (TensorOps'
/// `matmul2d` with `transpose_right`): a Swift view of CKernels' `ck_matmul_desc`.
public struct MatmulDescriptor: Sendable, Equatable {
    public var m: Int
    public var n: Int
    public var k: Int
    public var weightFormat: WeightFormat
    /// Block-scale encoding of the weights (implied by `weightFormat`).
    public var scaleFormat: ScaleFormat { weightFormat.scaleFormat }
    /// Whether activations enter as per-32 int8 blocks (`true`) or fp32.
    public var quantizedActivations: Bool { weightFormat.usesQuantizedActivations }
    /// `false`: y is overwritten; `true`: the product is added to y.
    public var accumulate: Bool

    public init(m: Int, n: Int, k: Int, weightFormat: WeightFormat, accumulate: Bool = false) {
        self.m = m; self.n = n; self.k = k; self.weightFormat = weightFormat; self.accumulate = accumulate
    }

    var ck: ck_matmul_desc {
        ck_matmul_desc(m: Int64(m), n: Int64(n), k: Int64(k), accumulate: accumulate ? 1 : 0)
    }
}

/// Activation scratch: the int8 blocks (and fp32 source pointer) of one matmul input, quantized
/// once and shared by every matmul that reads the same input (Q/K/V, gate/up). Allocated once
/// for a maximum size; `quantize` never allocates. Not thread-safe: one per session.
public final class MatmulScratch: @unchecked Sendable {
    /// Capacity in rows and in input features.
    public let maxRows: Int, maxK: Int
    private let q: UnsafeMutablePointer<Int8>
    private let meta: UnsafeMutablePointer<Float>
    private let sums: UnsafeMutablePointer<Int16>, halfSums: UnsafeMutablePointer<Int16>
    var act: ck_act
    /// Rows and length of the input last passed to `quantize`.
    public private(set) var rows = 0, k = 0
    /// The scheme of the int8 blocks now in the scratch (nil: none, only the fp32 input is set).
    public private(set) var scheme: ActivationQuantization?

    public init(maxRows: Int, maxK: Int) {
        precondition(maxRows > 0 && maxK > 0 && maxK % 32 == 0, "maxK must be a positive multiple of 32")
        self.maxRows = maxRows
        self.maxK = maxK
        q = .allocate(capacity: maxRows * maxK)
        meta = .allocate(capacity: maxRows * maxK / 32 * Int(CK_ACT_META))
        sums = .allocate(capacity: maxRows * maxK / 32)
        halfSums = .allocate(capacity: maxRows * maxK / 16)
        act = ck_act(x: nil, q: q, meta: meta, sums: sums, half_sums: halfSums, m: 0, k: 0, format: CK_ACT_Q8_32)
    }

    deinit {
        q.deallocate()
        meta.deallocate()
        sums.deallocate()
        halfSums.deallocate()
    }

    /// Quantizes `x[m][k]` with `scheme` (int8 blocks of 32, scales, block sums; see
    /// `ActivationQuantization`) on `context`'s threads and kernel path, and remembers `x` for
    /// fp32-weight matmuls, so `x` must stay valid until those have run. A nil scheme only records
    /// `x` (fp32 weights need nothing else).
    func quantize(_ x: UnsafePointer<Float>, m: Int, k: Int, as scheme: ActivationQuantization?, on context: ExecutionContext) {
        precondition(m <= maxRows && k <= maxK && k % (scheme?.groupSize ?? 32) == 0, "input exceeds the scratch capacity")
        rows = m
        self.k = k
        self.scheme = scheme
        act.x = x
        act.m = Int64(m)
        act.k = Int64(k)
        guard let scheme else { return }
        act.format = scheme.ck
        withUnsafePointer(to: &act) { ck_quantize_act($0, context.ckThreads, context.ckPath) }
    }

    /// The int8 values of row `row` (for tests).
    public func quantizedRow(_ row: Int) -> [Int8] { Array(UnsafeBufferPointer(start: q + row * k, count: k)) }
    /// {scale, scale·sum} of every 32-block of row `row` (for tests).
    public func blockMeta(_ row: Int) -> [Float] {
        let perRow = k / 32 * Int(CK_ACT_META)
        return Array(UnsafeBufferPointer(start: meta + row * perRow, count: perRow))
    }
    /// Integer sum of every 32-block of row `row` (for tests).
    public func blockSums(_ row: Int) -> [Int16] { Array(UnsafeBufferPointer(start: sums + row * k / 32, count: k / 32)) }
    /// Integer sum of every 16 elements of row `row` (for tests).
    public func halfBlockSums(_ row: Int) -> [Int16] { Array(UnsafeBufferPointer(start: halfSums + row * k / 16, count: k / 16)) }
}

extension ExecutionContext {
    /// Quantizes `x[m][k]` into `matmulScratch` with `scheme` (see `MatmulScratch.quantize`).
    public func quantize(_ x: UnsafePointer<Float>, m: Int, k: Int, as scheme: ActivationQuantization?) {
        matmulScratch.quantize(x, m: m, k: k, as: scheme, on: self)
    }
}

/// `y[m][n] = x[m][k] · Wᵀ` (or `+=` when `accumulate`), fp32 in and out, on `context`: `x` is
/// quantized into its scratch, then its kernel path runs on its threads over N.
public func matmul(_ w: WeightMatrix, x: UnsafePointer<Float>, m: Int, y: UnsafeMutablePointer<Float>,
                   context: ExecutionContext, accumulate: Bool = false) {
    context.quantize(x, m: m, k: w.k, as: w.format.activationQuantization)
    let scratch = context.matmulScratch
    let desc = MatmulDescriptor(m: scratch.rows, n: w.n, k: w.k, weightFormat: w.format, accumulate: accumulate)
    withUnsafePointer(to: desc.ck) { dp in
        withUnsafePointer(to: w.weights) { wp in
            withUnsafePointer(to: scratch.act) { ap in
                ck_matmul(dp, wp, ap, y, context.ckThreads, context.ckPath)
            }
        }
    }
}
