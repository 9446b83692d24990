import CKernels
import Testing
@testable import Engine

/// `RopeAngleCache` hands the layers of a batch the angles the first one computed, and recomputes
/// them when the positions or the rope change: rotating through it gives ck_rope's bits, row by
/// row, for every call of a sequence that reuses, changes and shrinks the batch and alternates
/// bases.
@Suite struct RopeAngleCacheTests {
    /// A matrix of `rows` × `columns` deterministic values in [-1, 1).
    private func matrix(rows: Int, columns: Int, seed: Int) -> Matrix {
        let m = Matrix(rows: rows, columns: columns)
        for r in 0..<rows {
            for c in 0..<columns { m.row(r)[c] = Float((r * 7919 + c * 104_729 + seed * 31) % 2000) / 1000 - 1 }
        }
        return m
    }

    @Test func cachedAnglesGiveTheKernelsBits() {
        let heads = 4, headDim = 64
        let local = RopeParameters(base: 10_000, style: .neox, rotaryDims: 64)
        let global = RopeParameters(base: 1_000_000, style: .neox, rotaryDims: 64)
        let calls: [(positions: [Int], rows: Int, rope: RopeParameters)] = [
            ([0, 1, 2, 3, 4], 5, local), ([0, 1, 2, 3, 4], 5, local),   // reused
            ([0, 1, 2, 3, 4], 5, global),                               // the other base
            ([5], 1, local), ([5], 1, global), ([6], 1, local),         // decode steps
            ([9, 10, 11, 12, 13], 3, local),                            // fewer rows than positions
            ([0, 1, 2, 3, 4], 5, local),                                // back to the first batch
        ]
        let cache = RopeAngleCache()
        for (i, call) in calls.enumerated() {
            let cached = matrix(rows: 5, columns: heads * headDim, seed: i), plain = matrix(rows: 5, columns: heads * headDim, seed: i)
            Ops.rope(cached, rows: call.rows, positions: call.positions, heads: heads, headDim: headDim, rope: call.rope,
                     angles: cache, context: ExecutionContext(threads: 2, maxRows: 1, maxK: 32))
            for r in 0..<call.rows {
                ck_rope(plain.row(r), Int64(heads), Int64(headDim), Int64(call.rope.rotaryDims), Int64(call.positions[r]),
                        call.rope.base, 1)
            }
            for r in 0..<5 {
                for c in 0..<(heads * headDim) {
                    if cached.row(r)[c].bitPattern != plain.row(r)[c].bitPattern {
                        Issue.record("call \(i): row \(r) column \(c) differs")
                        return
                    }
                }
            }
        }
    }

    /// Scaled ropes go through the cache too, keyed by all their parameters: two ropes with the
    /// same base and rotary dims but different scaling (linear, Llama 3 factors, YaRN) alternate
    /// and each gets its own angles, the rotation of the naive per-row loop over
    /// `RopeParameters.angles`, within fp32 rounding.
    @Test func scaledRopesKeepTheirOwnAngles() {
        let heads = 3, headDim = 32, rotary = 24
        var linear = RopeParameters(base: 10_000, style: .interleaved, rotaryDims: rotary)
        linear.frequencyScale = 0.25
        var factored = RopeParameters(base: 10_000, style: .interleaved, rotaryDims: rotary)
        factored.frequencyFactors = (0..<rotary / 2).map { 1 + Float($0) / 4 }
        var yarn = RopeParameters(base: 10_000, style: .neox, rotaryDims: rotary)
        yarn.frequencyScale = 0.25
        yarn.extrapolation = 1
        yarn.originalContext = 16
        yarn.attentionFactor = 0.9
        let plain = RopeParameters(base: 10_000, style: .interleaved, rotaryDims: rotary)
        let positions = [3, 17, 40, 41]
        let cache = RopeAngleCache()
        for (i, rope) in [linear, factored, yarn, plain, linear, yarn].enumerated() {
            let cached = matrix(rows: 4, columns: heads * headDim, seed: i), naive = matrix(rows: 4, columns: heads * headDim, seed: i)
            Ops.rope(cached, rows: 4, positions: positions, heads: heads, headDim: headDim, rope: rope, angles: cache,
                     context: ExecutionContext(threads: 2, maxRows: 1, maxK: 32))
            let half = rotary / 2
            var cs = [Float](repeating: 0, count: rotary)
            for r in 0..<4 {
                if rope.isPlain {
                    ck_rope(naive.row(r), Int64(heads), Int64(headDim), Int64(rotary), Int64(positions[r]), rope.base, 0)
                    continue
                }
                cs.withUnsafeMutableBufferPointer { rope.angles(position: positions[r], into: $0.baseAddress!) }
                for h in 0..<heads {
                    let x = naive.row(r) + h * headDim
                    for j in 0..<half {
                        let a = rope.style == .neox ? j : 2 * j, b = rope.style == .neox ? j + half : 2 * j + 1
                        let c = cs[j], s = cs[half + j], x0 = x[a], x1 = x[b]
                        x[a] = x0 * c - x1 * s
                        x[b] = x0 * s + x1 * c
                    }
                }
            }
            for r in 0..<4 {
                for c in 0..<(heads * headDim) where abs(cached.row(r)[c] - naive.row(r)[c]) > 1e-6 {
                    Issue.record("call \(i): row \(r) column \(c): \(cached.row(r)[c]) vs \(naive.row(r)[c])")
                    return
                }
            }
        }
    }
}
