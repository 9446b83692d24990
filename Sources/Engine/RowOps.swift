/// Row ops some families need and the C kernels do not have; cheap next to the matmuls around
/// them, so plain loops.
extension Ops {
    /// x[r] += bias for the first `rows` rows (Q/K/V biases); `bias` is `x.columns` long.
    public static func addBias(_ bias: [Float], to x: Matrix, rows: Int) {
        precondition(bias.count == x.columns && rows <= x.rows, "addBias: shape mismatch")
        bias.withUnsafeBufferPointer { b in
            for r in 0..<rows {
                let row = x.row(r)
                for c in 0..<x.columns { row[c] += b[c] }
            }
        }
    }

    /// x[r] *= factors[r] for the first `rows` rows (a per-position scale, e.g. attention temperature).
    public static func scaleRows(_ x: Matrix, rows: Int, by factors: [Float]) {
        precondition(factors.count >= rows && rows <= x.rows, "scaleRows: shape mismatch")
        for r in 0..<rows {
            let row = x.row(r), f = factors[r]
            for c in 0..<x.columns { row[c] *= f }
        }
    }
}
