import CKernels
import Dispatch
import Testing
@testable import Engine

/// Decode (one activation row): several weights in one parallel region split by bytes, and the
/// thread pool under concurrent callers. Every result must equal the reference bit for bit.
@Suite struct DecodeTests {
    static let intFormats: [WeightFormat] = [.q4_0, .q4_1, .q5_0, .q8_0, .q3_K, .q4_K, .q5_K, .q6_K, .mxint8, .mxfp4]

    /// Large enough (> 32 KiB streamed) that the split really uses several threads; N not a
    /// multiple of 16 so a thread's range can end inside a group.
    @Test(arguments: intFormats)
    func oneRowMatchesReferenceOnEveryThreadCount(_ format: WeightFormat) throws {
        let n = 403, k = 768
        let w = try randomWeights(format, n: n, k: k, seed: 700)
        let x = gaussians(k, seed: 701)
        let ref = runMatmul(w, x, m: 1, path: .ref)
        for path in simdPaths {
            for threads in [1, 2, 3, 5] {
                let y = runMatmul(w, x, m: 1, path: path, threads: threads)
                let bad = (0..<n).filter { y[$0].bitPattern != ref[$0].bitPattern }
                #expect(bad.isEmpty, "\(format) \(path) t=\(threads): \(bad.count) outputs differ")
            }
        }
    }

    /// Q/K/V-like weights of different formats and sizes on one input through `Ops.linear`: one
    /// row goes through the byte-split multi-matmul, several rows through one matmul per weight;
    /// both equal the reference per weight.
    @Test func linearOnSeveralWeightsMatchesReference() throws {
        let k = 768
        let weights = [try randomWeights(.q5_0, n: 517, k: k, seed: 710), try randomWeights(.q8_0, n: 40, k: k, seed: 711),
                       try randomWeights(.q4_K, n: 96, k: k, seed: 712), try randomWeights(.q6_K, n: 33, k: k, seed: 713)]
        for rows in [1, 3] {
            let values = gaussians(rows * k, seed: 714)
            let x = Matrix(rows: rows, columns: k)
            for r in 0..<rows { x.setRow(r, Array(values[r * k..<(r + 1) * k])) }
            let refs = weights.map { runMatmul($0, values, m: rows, path: .ref) }
            for path in simdPaths {
                for threads in [1, 2, 3] {
                    let outputs = weights.map { Matrix(rows: rows, columns: $0.n) }
                    let context = ExecutionContext(threads: threads, path: path, maxRows: rows, maxK: k)
                    Ops.linear(x, rows: rows, weights: weights, into: outputs, context: context)
                    for (i, out) in outputs.enumerated() {
                        let y = (0..<rows).flatMap { out.copyRow($0) }
                        let bad = (0..<y.count).filter { y[$0].bitPattern != refs[i][$0].bitPattern }
                        #expect(bad.isEmpty, "rows=\(rows) \(path) t=\(threads) weight \(i): \(bad.count) outputs differ")
                    }
                }
            }
        }
    }

    /// Several threads opening parallel regions at once (and regions opened while another runs)
    /// still give every caller its exact result.
    @Test func concurrentCallersGetExactResults() throws {
        let k = 576
        let weights = try (0..<4).map { try randomWeights(.q4_1, n: 600 + 16 * $0, k: k, seed: 720 + UInt64($0)) }
        let inputs = (0..<4).map { gaussians(k, seed: 730 + UInt64($0)) }
        let refs = (0..<4).map { runMatmul(weights[$0], inputs[$0], m: 1, path: .ref) }
        /// One flag per job, each written by exactly one job.
        struct Flags: @unchecked Sendable { let p = UnsafeMutablePointer<Bool>.allocate(capacity: 4 * 20) }
        let results = Flags()
        defer { results.p.deallocate() }
        DispatchQueue.concurrentPerform(iterations: 4 * 20) { job in
            let i = job % 4
            let y = runMatmul(weights[i], inputs[i], m: 1, path: KernelPath.active, threads: 2)
            results.p[job] = (0..<y.count).allSatisfy { y[$0].bitPattern == refs[i][$0].bitPattern }
        }
        #expect((0..<(4 * 20)).allSatisfy { results.p[$0] })
    }
}
