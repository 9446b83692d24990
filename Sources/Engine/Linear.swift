import CKernels

/// Linear layers over `Matrix` buffers, on the quantized matmul kernels.
extension Ops {
    /// `outputs[i][r] = x[r] · weights[i]ᵀ` for the first `rows` rows, for every weight that reads
    /// the same input (Q/K/V, gate/up). The input is quantized into `scratch` once per distinct
    /// activation scheme among the weights (usually one) and shared by the weights using it; the
    /// weights of one scheme go to the kernels in one call (`ck_matmul_multi`), which for one row
    /// (decode) streams them all in one parallel region split between the threads by bytes.
    /// Results equal one `matmul` per weight. Runs on `context` (its scratch, threads and path).
    public static func linear(_ x: Matrix, rows: Int, weights: [WeightMatrix], into outputs: [Matrix],
                              context: ExecutionContext) {
        precondition(weights.count == outputs.count && !weights.isEmpty, "linear: one output per weight")
        linear(x, rows: rows, count: weights.count, weight: { weights[$0] }, output: { outputs[$0] }, context: context)
    }

    /// `y = x · Wᵀ` for one weight.
    public static func linear(_ x: Matrix, rows: Int, weight: WeightMatrix, into y: Matrix, context: ExecutionContext) {
        linear(x, rows: rows, count: 1, weight: { _ in weight }, output: { _ in y }, context: context)
    }

    /// The shared body, over index accessors so neither caller builds an array per call (the
    /// decode path runs this a few hundred times per token).
    private static func linear(_ x: Matrix, rows: Int, count all: Int, weight: (Int) -> WeightMatrix, output: (Int) -> Matrix,
                               context: ExecutionContext) {
        precondition(rows <= x.rows, "linear: too many rows")
        for i in 0..<all {
            let w = weight(i), y = output(i)
            precondition(w.k == x.columns && w.n == y.columns && rows <= y.rows, "linear: shape mismatch for \(w.name)")
        }
        // Scheme groups in order of first appearance; fp32-activation weights form the nil group.
        for first in 0..<all {
            let scheme = weight(first).format.activationQuantization
            if (0..<first).contains(where: { weight($0).format.activationQuantization == scheme }) { continue }
            context.quantize(x.base, m: rows, k: x.columns, as: scheme)
            let count = (first..<all).reduce(0) { $0 + (weight($1).format.activationQuantization == scheme ? 1 : 0) }
            // Stack scratch for the C call: no allocation per token.
            withUnsafeTemporaryAllocation(of: ck_matmul_desc.self, capacity: count) { descs in
                withUnsafeTemporaryAllocation(of: ck_weights.self, capacity: count) { ws in
                    withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<Float>?.self, capacity: count) { ys in
                        var j = 0
                        for i in first..<all where weight(i).format.activationQuantization == scheme {
                            let w = weight(i)
                            descs.initializeElement(at: j, to: MatmulDescriptor(m: rows, n: w.n, k: w.k, weightFormat: w.format).ck)
                            ws.initializeElement(at: j, to: w.weights)
                            ys.initializeElement(at: j, to: output(i).base)
                            j += 1
                        }
                        withUnsafePointer(to: context.matmulScratch.act) { a in
                            ck_matmul_multi(descs.baseAddress, ws.baseAddress, a, ys.baseAddress, Int32(count),
                                            context.ckThreads, context.ckPath)
                        }
                    }
                }
            }
        }
    }
}
