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
    private let sums: UnsafeMutablePointer<Int32>
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
        meta = .allocate(capacity: maxRows * maxK / 32 * 4)
        sums = .allocate(capacity: maxRows * maxK / 32)
        act = ck_act(x: nil, q: q, meta: meta, sums: sums, m: 0, k: 0, format: CK_ACT_Q8_32)
    }

    deinit {
        q.deallocate()
        meta.deallocate()
        sums.deallocate()
    }

    /// Quantizes `x[m][k]` with `scheme` (int8 blocks of 32, scales, block sums; see
    /// `ActivationQuantization`) and remembers `x` for fp32-weight matmuls, so `x` must stay
    /// valid until those have run. A nil scheme only records `x` (fp32 weights need nothing else).
    public func quantize(_ x: UnsafePointer<Float>, m: Int, k: Int, as scheme: ActivationQuantization?,
                         threads: Int = 1, path: KernelPath? = nil) {
        precondition(m <= maxRows && k <= maxK && k % (scheme?.groupSize ?? 32) == 0, "input exceeds the scratch capacity")
        rows = m
        self.k = k
        self.scheme = scheme
        act.x = x
        act.m = Int64(m)
        act.k = Int64(k)
        guard let scheme else { return }
        act.format = scheme.ck
        withUnsafePointer(to: &act) { ck_quantize_act($0, Int32(threads), path.map { Int32($0.rawValue) } ?? -1) }
    }

    /// The int8 values of row `row` (for tests).
    public func quantizedRow(_ row: Int) -> [Int8] { Array(UnsafeBufferPointer(start: q + row * k, count: k)) }
    /// {scale, scale·sum, scale·sum(0..<16), scale·sum(16..<32)} of every 32-block of row `row` (for tests).
    public func blockMeta(_ row: Int) -> [Float] { Array(UnsafeBufferPointer(start: meta + row * k / 8, count: k / 8)) }
    /// Integer sum of every 32-block of row `row` (for tests).
    public func blockSums(_ row: Int) -> [Int32] { Array(UnsafeBufferPointer(start: sums + row * k / 32, count: k / 32)) }
}

/// `y[m][n] = x[m][k] · Wᵀ` (or `+=` when `accumulate`), fp32 in and out. Quantizes `x` into
/// `scratch` first, then runs the kernel on `threads` threads over N. `path` forces an
/// implementation for this call (tests, benchmarks); nil uses `KernelPath.active`.
public func matmul(_ w: WeightMatrix, x: UnsafePointer<Float>, m: Int, y: UnsafeMutablePointer<Float>,
                   scratch: MatmulScratch, threads: Int, accumulate: Bool = false, path: KernelPath? = nil) {
    scratch.quantize(x, m: m, k: w.k, as: w.format.activationQuantization, threads: threads, path: path)
    matmul(w, quantized: scratch, y: y, threads: threads, accumulate: accumulate, path: path)
}

/// `y[rows][n] (+)= x · Wᵀ` for the input last quantized into `scratch` (see
/// `MatmulScratch.quantize`; its scheme must be the weight format's), so Q/K/V or gate/up share
/// one activation quantization.
public func matmul(_ w: WeightMatrix, quantized scratch: MatmulScratch, y: UnsafeMutablePointer<Float>,
                   threads: Int, accumulate: Bool = false, path: KernelPath? = nil) {
    precondition(scratch.k == w.k, "activation length \(scratch.k) does not match weight k = \(w.k)")
    precondition(w.format.activationQuantization.map { $0 == scratch.scheme } ?? true,
                 "\(w.name): activations quantized as \(scratch.scheme.map { "\($0)" } ?? "none"), the format needs \(w.format.activationQuantization!)")
    let desc = MatmulDescriptor(m: scratch.rows, n: w.n, k: w.k, weightFormat: w.format, accumulate: accumulate)
    run(desc, w, scratch, y, threads, path)
}

/// Runs a described matmul; `desc` must match `w` and the quantized input in `scratch`.
public func matmul(_ desc: MatmulDescriptor, weights w: WeightMatrix, quantized scratch: MatmulScratch,
                   y: UnsafeMutablePointer<Float>, threads: Int, path: KernelPath? = nil) {
    precondition(desc.n == w.n && desc.k == w.k && desc.weightFormat == w.format, "descriptor does not match the weights")
    precondition(desc.m == scratch.rows && desc.k == scratch.k, "descriptor does not match the quantized input")
    precondition(w.format.activationQuantization.map { $0 == scratch.scheme } ?? true, "activations quantized with another scheme")
    run(desc, w, scratch, y, threads, path)
}

private func run(_ desc: MatmulDescriptor, _ w: WeightMatrix, _ scratch: MatmulScratch, _ y: UnsafeMutablePointer<Float>,
                 _ threads: Int, _ path: KernelPath?) {
    withUnsafePointer(to: desc.ck) { dp in
        withUnsafePointer(to: w.weights) { wp in
            withUnsafePointer(to: scratch.act) { ap in
                ck_matmul(dp, wp, ap, y, Int32(max(1, threads)), path.map { Int32($0.rawValue) } ?? -1)
            }
        }
    }
}
