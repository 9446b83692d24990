/// Linear layers over `Matrix` buffers, on the quantized matmul kernels.
extension Ops {
    /// `outputs[i][r] = x[r] · weights[i]ᵀ` for the first `rows` rows, for every weight that reads
    /// the same input (Q/K/V, gate/up): the input is quantized into `scratch` once per distinct
    /// activation scheme among the weights (usually one) and shared by the weights using it.
    public static func linear(_ x: Matrix, rows: Int, weights: [WeightMatrix], into outputs: [Matrix],
                              scratch: MatmulScratch, threads: Int) {
        precondition(weights.count == outputs.count && !weights.isEmpty, "linear: one output per weight")
        precondition(rows <= x.rows, "linear: too many rows")
        for (w, y) in zip(weights, outputs) {
            precondition(w.k == x.columns && w.n == y.columns && rows <= y.rows, "linear: shape mismatch for \(w.name)")
        }
        // Groups in order of first appearance; fp32-activation weights form the nil group.
        for (i, first) in weights.enumerated() {
            let scheme = first.format.activationQuantization
            if weights[..<i].contains(where: { $0.format.activationQuantization == scheme }) { continue }
            scratch.quantize(x.base, m: rows, k: x.columns, as: scheme, threads: threads)
            for (w, y) in zip(weights[i...], outputs[i...]) where w.format.activationQuantization == scheme {
                matmul(w, quantized: scratch, y: y.base, threads: threads)
            }
        }
    }

    /// `y = x · Wᵀ` for one weight.
    public static func linear(_ x: Matrix, rows: Int, weight: WeightMatrix, into y: Matrix, scratch: MatmulScratch, threads: Int) {
        linear(x, rows: rows, weights: [weight], into: [y], scratch: scratch, threads: threads)
    }
}
