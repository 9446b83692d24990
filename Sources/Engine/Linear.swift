import CKernels

/// Linear layers over `Matrix` buffers, on the quantized matmul kernels.
extension Ops {
    /// `outputs[i][r] = x[r] · weights[i]ᵀ` for the first `rows` rows, for every weight that reads
    /// the same input (Q/K/V, gate/up): the input is quantized into `scratch` once and shared. For
    /// one row (decode) all the weights stream in one parallel region, split between the threads
    /// by bytes (`ck_matmul_multi`); results equal one `matmul` per weight. `path` forces a kernel
    /// path for this call (tests); nil uses `KernelPath.active`.
    public static func linear(_ x: Matrix, rows: Int, weights: [WeightMatrix], into outputs: [Matrix],
                              scratch: MatmulScratch, threads: Int, path: KernelPath? = nil) {
        precondition(weights.count == outputs.count && !weights.isEmpty, "linear: one output per weight")
        precondition(rows <= x.rows, "linear: too many rows")
        scratch.quantize(x.base, m: rows, k: x.columns, threads: threads, path: path)
        let count = weights.count
        // Stack scratch for the C call: no allocation per token.
        withUnsafeTemporaryAllocation(of: ck_matmul_desc.self, capacity: count) { descs in
            withUnsafeTemporaryAllocation(of: ck_weights.self, capacity: count) { ws in
                withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<Float>?.self, capacity: count) { ys in
                    for i in 0..<count {
                        let w = weights[i], y = outputs[i]
                        precondition(w.k == x.columns && w.n == y.columns && rows <= y.rows, "linear: shape mismatch for \(w.name)")
                        descs.initializeElement(at: i, to: MatmulDescriptor(m: rows, n: w.n, k: w.k, weightFormat: w.format).ck)
                        ws.initializeElement(at: i, to: w.weights)
                        ys.initializeElement(at: i, to: y.base)
                    }
                    withUnsafePointer(to: scratch.act) { a in
                        ck_matmul_multi(descs.baseAddress, ws.baseAddress, a, ys.baseAddress, Int32(count), Int32(max(1, threads)),
                                        path.map { Int32($0.rawValue) } ?? -1)
                    }
                }
            }
        }
    }

    /// `y = x · Wᵀ` for one weight.
    public static func linear(_ x: Matrix, rows: Int, weight: WeightMatrix, into y: Matrix, scratch: MatmulScratch,
                              threads: Int, path: KernelPath? = nil) {
        linear(x, rows: rows, weights: [weight], into: [y], scratch: scratch, threads: threads, path: path)
    }
}
