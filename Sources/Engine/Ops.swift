import CKernels

/// Row-wise transformer ops over `Matrix` buffers. Each applies to the first `rows` rows.
/// Where a method takes a `width`, it operates on each row as `columns / width` vectors of that
/// length (per-head norms). The `context`'s threads split a batch of rows (prefill); every row is
/// computed exactly as on one thread, and small batches (decode's one row) never open a parallel
/// region. Ops with a kernel per path run the context's.
public enum Ops {
    /// RMSNorm of each `width`-long vector of `x`, scaled by `weight` (length `width`).
    public static func rmsNorm(_ x: Matrix, rows: Int, weight: [Float], eps: Float, into y: Matrix, context: ExecutionContext) {
        precondition(x.columns == y.columns && x.columns % weight.count == 0, "rmsNorm: shape mismatch")
        precondition(rows <= x.rows && rows <= y.rows, "rmsNorm: too many rows")
        weight.withUnsafeBufferPointer { w in
            ck_rms_norm_rows(x.base, y.base, Int64(rows), Int64(x.columns), w.baseAddress, Int64(w.count), eps, context.ckThreads,
                             context.ckPath)
        }
    }

    /// How a rotary embedding pairs dimensions.
    public enum RopeStyle: Sendable {
        /// Adjacent pairs (x[2i], x[2i+1]): llama.cpp's "normal" mode, used for llama.
        case interleaved
        /// Split halves (x[i], x[i + d/2]): GPT-NeoX style, used for gemma.
        case neox
    }

    /// gate = silu(gate) * up.
    public static func swiGLU(gate: Matrix, up: Matrix, rows: Int, context: ExecutionContext) {
        precondition(gate.columns == up.columns && rows <= gate.rows && rows <= up.rows, "swiGLU: shape mismatch")
        ck_swiglu_rows(gate.base, up.base, Int64(rows), Int64(gate.columns), context.ckThreads, context.ckPath)
    }

    /// gate = gelu_tanh(gate) * up.
    public static func geGLU(gate: Matrix, up: Matrix, rows: Int, context: ExecutionContext) {
        precondition(gate.columns == up.columns && rows <= gate.rows && rows <= up.rows, "geGLU: shape mismatch")
        ck_geglu_rows(gate.base, up.base, Int64(rows), Int64(gate.columns), context.ckThreads, context.ckPath)
    }

    /// y += x.
    public static func add(_ x: Matrix, into y: Matrix, rows: Int, context: ExecutionContext) {
        precondition(x.columns == y.columns && rows <= x.rows && rows <= y.rows, "add: shape mismatch")
        ck_add_rows(y.base, x.base, Int64(rows), Int64(x.columns), context.ckThreads)
    }

    /// x *= s.
    public static func scale(_ x: Matrix, rows: Int, by s: Float, context: ExecutionContext) {
        precondition(rows <= x.rows, "scale: too many rows")
        ck_scale_rows(x.base, s, Int64(rows), Int64(x.columns), context.ckThreads)
    }

    /// Copies row `from` of `x` into row `to` of `y`.
    public static func copyRow(_ x: Matrix, _ from: Int, into y: Matrix, _ to: Int) {
        precondition(x.columns == y.columns, "copyRow: shape mismatch")
        y.row(to).update(from: x.row(from), count: x.columns)
    }
}
