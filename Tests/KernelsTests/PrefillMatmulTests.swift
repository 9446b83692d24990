import CKernels
import Testing
@testable import Engine

/// The threaded prefill drivers (ck_matmul_avx2_prefill_multi on AVX2, prefill_units.c on the
/// AVX-512 and AMX paths, native and emulated): several matrices on one quantized input, units
/// handed out dynamically over threads (fewer than 8 rows, a batched decode step: one contiguous
/// byte share per thread), equal bit for bit to the reference kernel run
/// matrix by matrix, for row counts that end in a partial 32-row block and a partial 4-row tile
/// and for N that ends in a partial half.
@Suite struct PrefillMatmulTests {
    @Test(arguments: [4, 6, 33, 97, 130])
    func severalMatricesOnOneInputMatchReference(rows m: Int) throws {
        let k = 576
        // Q5_0 and Q8_0 share the Q8_0 activation scheme, so Ops.linear passes all three to one
        // driver call; Q4_1 (Q8_1 scheme) goes in a second call of its own.
        let ws = [try randomWeights(.q5_0, n: 72, k: k, seed: 11), try randomWeights(.q8_0, n: 40, k: k, seed: 12),
                  try randomWeights(.q5_0, n: 21, k: k, seed: 13), try randomWeights(.q4_1, n: 200, k: k, seed: 14)]
        let x = gaussians(m * k, seed: 15)
        let input = Matrix(rows: m, columns: k)
        for r in 0..<m { for c in 0..<k { input.row(r)[c] = x[r * k + c] } }
        let refs = ws.map { runMatmul($0, x, m: m, path: .ref) }
        for path in simdPaths {
            for threads in [1, 2, 3] {
                let context = ExecutionContext(threads: threads, path: path, maxRows: m, maxK: k)
                let outs = ws.map { Matrix(rows: m, columns: $0.n) }
                Ops.linear(input, rows: m, weights: ws, into: outs, context: context)
                for (i, (w, y)) in zip(ws, outs).enumerated() {
                    let got = (0..<(m * w.n)).map { y.row($0 / w.n)[$0 % w.n] }
                    let mismatches = (0..<got.count).filter { got[$0].bitPattern != refs[i][$0].bitPattern }
                    #expect(mismatches.isEmpty, "\(w.format) \(path) n=\(w.n) m=\(m) t=\(threads): \(mismatches.count) outputs differ")
                }
            }
        }
    }
}
