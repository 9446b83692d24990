import CKernels

/// Row-wise transformer ops over `Matrix` buffers. Each applies to the first `rows` rows.
/// Where a method takes a `width`, it operates on each row as `columns / width` vectors of that
/// length (per-head norms).
public enum Ops {
    /// RMSNorm of each `width`-long vector of `x`, scaled by `weight` (length `width`).
    public static func rmsNorm(_ x: Matrix, rows: Int, weight: [Float], eps: Float, into y: Matrix) {
        precondition(x.columns == y.columns && x.columns % weight.count == 0, "rmsNorm: shape mismatch")
        let width = weight.count
        weight.withUnsafeBufferPointer { w in
            for r in 0..<rows {
                for v in stride(from: 0, to: x.columns, by: width) {
                    ck_rms_norm(x.row(r) + v, w.baseAddress, y.row(r) + v, Int64(width), eps)
                }
            }
        }
    }

    /// How a rotary embedding pairs dimensions.
    public enum RopeStyle: Sendable {
        /// Adjacent pairs (x[2i], x[2i+1]): llama.cpp's "normal" mode, used for llama.
        case interleaved
        /// Split halves (x[i], x[i + d/2]): GPT-NeoX style, used for gemma.
        case neox
    }

    /// Rotates each of the `heads` heads (length `headDim`, first `rotaryDims` rotated) of row r
    /// by position `positions[r]`.
    public static func rope(_ x: Matrix, rows: Int, positions: [Int], heads: Int, headDim: Int, rotaryDims: Int,
                            base: Float, style: RopeStyle) {
        precondition(x.columns == heads * headDim && positions.count >= rows, "rope: shape mismatch")
        for r in 0..<rows {
            ck_rope(x.row(r), Int64(heads), Int64(headDim), Int64(rotaryDims), Int64(positions[r]), base,
                    style == .neox ? 1 : 0)
        }
    }

    /// gate = silu(gate) * up.
    public static func swiGLU(gate: Matrix, up: Matrix, rows: Int) {
        precondition(gate.columns == up.columns, "swiGLU: shape mismatch")
        for r in 0..<rows { ck_swiglu(gate.row(r), up.row(r), Int64(gate.columns)) }
    }

    /// gate = gelu_tanh(gate) * up.
    public static func geGLU(gate: Matrix, up: Matrix, rows: Int) {
        precondition(gate.columns == up.columns, "geGLU: shape mismatch")
        for r in 0..<rows { ck_geglu(gate.row(r), up.row(r), Int64(gate.columns)) }
    }

    /// y += x.
    public static func add(_ x: Matrix, into y: Matrix, rows: Int) {
        precondition(x.columns == y.columns, "add: shape mismatch")
        for r in 0..<rows { ck_add(y.row(r), x.row(r), Int64(x.columns)) }
    }

    /// x *= s.
    public static func scale(_ x: Matrix, rows: Int, by s: Float) {
        for r in 0..<rows { ck_scale(x.row(r), s, Int64(x.columns)) }
    }

    /// Copies row `from` of `x` into row `to` of `y`.
    public static func copyRow(_ x: Matrix, _ from: Int, into y: Matrix, _ to: Int) {
        precondition(x.columns == y.columns, "copyRow: shape mismatch")
        y.row(to).update(from: x.row(from), count: x.columns)
    }
}
