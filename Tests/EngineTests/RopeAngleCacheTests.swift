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
                     angles: cache, threads: 2)
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
}
