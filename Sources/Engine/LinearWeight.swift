import CKernels
import GGUF

/// A weight matrix `W` of shape `[outputs][inputs]` (GGUF shape `[inputs, outputs]`) that
/// computes `y[m][outputs] = x[m][inputs] · Wᵀ`.
public protocol LinearWeight: Sendable {
    var inputs: Int { get }
    var outputs: Int { get }
    /// Applies the weight to the first `rows` rows of `x`, writing the first `rows` rows of `y`,
    /// on up to `threads` threads.
    func apply(_ x: Matrix, rows: Int, into y: Matrix, threads: Int)
}

extension LinearWeight {
    func checkShapes(_ x: Matrix, rows: Int, _ y: Matrix) {
        precondition(x.columns == inputs && y.columns == outputs, "linear: shape mismatch")
        precondition(rows <= x.rows && rows <= y.rows, "linear: too many rows")
    }
}

/// The fp32 path: the weight dequantized once at load, multiplied with OpenBLAS `sgemm`.
/// Exact up to fp32 rounding, so it doubles as the oracle for the quantized kernels.
public final class DenseLinear: LinearWeight, @unchecked Sendable {
    public let inputs: Int
    public let outputs: Int
    private let weights: [Float]   // [outputs][inputs]

    public init(tensor: GGUFTensorInfo, in file: GGUFFile) throws(EngineError) {
        guard tensor.shape.count == 2 else { throw .notAMatrix(tensor: tensor.name, shape: tensor.shape) }
        inputs = tensor.shape[0]
        outputs = tensor.shape[1]
        weights = try dequantizeRows(tensor, in: file)
    }

    public func apply(_ x: Matrix, rows: Int, into y: Matrix, threads: Int) {
        checkShapes(x, rows: rows, y)
        openblas_set_num_threads(Int32(threads))
        weights.withUnsafeBufferPointer { w in
            if rows == 1 {
                cblas_sgemv(CblasRowMajor, CblasNoTrans, Int32(outputs), Int32(inputs), 1, w.baseAddress, Int32(inputs),
                            x.base, 1, 0, y.base, 1)
            } else {
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(rows), Int32(outputs), Int32(inputs), 1,
                            x.base, Int32(inputs), w.baseAddress, Int32(inputs), 0, y.base, Int32(outputs))
            }
        }
    }
}
