import CKernels
import Testing
@testable import Engine

/// The rows' kind, never their count, picks the attention kernel, and no row's bits depend on the
/// rows beside it (docs/kernels.md, "One order for attention"). Prompt rows prefilled whole and in
/// chunks of 1, 3, 7 and 16 rows give ref's whole-prompt bits on every path (native and emulated)
/// at 1 and 2 threads, over fp16, q8_0 and MXFP8 caches, with and without windows; each chunk runs
/// over the cache as a prefill leaves it, the positions after its last row holding other rows.
/// Decoded rows in one call give each row's bits alone (split-K or the per-head kernel, by the
/// row's positions). Time cap: ~15 s on 2 vCPUs (ref's scalar kernels).
@Suite struct RowKindAttentionTests {
    static let promptCases: [AttentionTests.Case] = [
        // SmolLM2's shape from position 0; Gemma 3's with a window (q8_0: a masked chunk's V
        // bounds per lane); a window shorter than a chunk; MXFP8 windowed; q8_0's masked chunks
        // on the diagonal only; a window that starts chunks off their 30-position grid.
        .init(heads: 9, kvHeads: 3, headDim: 64, rows: 37, start: 0, window: 0, format: CK_KV_F16, reversed: false),
        .init(heads: 4, kvHeads: 1, headDim: 256, rows: 40, start: 90, window: 40, format: CK_KV_Q8_0, reversed: false),
        .init(heads: 4, kvHeads: 1, headDim: 64, rows: 48, start: 200, window: 5, format: CK_KV_F16, reversed: false),
        .init(heads: 8, kvHeads: 2, headDim: 64, rows: 20, start: 90, window: 40, format: CK_KV_MXFP8_E4M3, reversed: false),
        .init(heads: 9, kvHeads: 3, headDim: 64, rows: 37, start: 61, window: 0, format: CK_KV_Q8_0, reversed: false),
        .init(heads: 6, kvHeads: 2, headDim: 96, rows: 30, start: 50, window: 33, format: CK_KV_Q8_0, reversed: false),
        .init(heads: 4, kvHeads: 1, headDim: 256, rows: 25, start: 500, window: 512, format: CK_KV_F16, reversed: false),
    ]

    /// The fixture's cache with every position after `last` replaced by position 0's rows: what a
    /// cache holds before those positions are prefilled (other rows, not these).
    static func cacheUpTo(_ f: AttentionTests.Fixture, last: Int) -> (k: [UInt8], v: [UInt8]) {
        var k = f.k, v = f.v
        for p in last + 1..<f.capacity {
            k.replaceSubrange(p * f.rowBytes..<(p + 1) * f.rowBytes, with: f.k[0..<f.rowBytes])
            v.replaceSubrange(p * f.rowBytes..<(p + 1) * f.rowBytes, with: f.v[0..<f.rowBytes])
        }
        return (k, v)
    }

    @Test(arguments: promptCases)
    func promptRowsGiveRefsWholeBitsInAnyChunk(_ c: AttentionTests.Case) {
        let f = AttentionTests.Fixture(c, seeds: (61, 62, 63))
        let whole = f.run(threads: 1, path: .ref, kind: .prompt).out.map(\.bitPattern)
        for path in [KernelPath.ref] + simdPaths {
            for threads in [1, 2] {
                for size in [c.rows, 1, 3, 7, 16] {
                    var out: [Float] = []
                    for a in stride(from: 0, to: c.rows, by: size) {
                        let rows = a..<min(c.rows, a + size)
                        let cache = Self.cacheUpTo(f, last: Int(f.positions[rows.upperBound - 1]))
                        out += f.run(threads: threads, path: path, kind: .prompt, rows: rows, cache: cache).out
                    }
                    let bad = zip(whole, out).filter { $0 != $1.bitPattern }.count
                    #expect(bad == 0, "\(c) \(path) \(threads) threads, chunks of \(size): \(bad) of \(out.count) outputs differ")
                }
            }
        }
    }

    /// Decoded rows in one call: each row's bits alone, whichever kernel its positions pick (fp16
    /// rows on both sides of CK_SPLIT_MIN_POSITIONS; block formats split-K).
    @Test(arguments: [
        AttentionTests.Case(heads: 9, kvHeads: 3, headDim: 64, rows: 6, start: 252, window: 0, format: CK_KV_F16, reversed: true),
        AttentionTests.Case(heads: 4, kvHeads: 1, headDim: 256, rows: 3, start: 300, window: 128, format: CK_KV_Q8_0, reversed: false),
        AttentionTests.Case(heads: 8, kvHeads: 2, headDim: 64, rows: 5, start: 90, window: 0, format: CK_KV_MXFP8_E4M3, reversed: false),
    ])
    func decodedRowsGiveTheirBitsAlone(_ c: AttentionTests.Case) {
        let f = AttentionTests.Fixture(c, seeds: (71, 72, 73))
        for path in [KernelPath.ref] + simdPaths {
            let together = f.run(threads: 2, path: path, kind: .decoded).out.map(\.bitPattern)
            var alone: [UInt32] = []
            for r in 0..<c.rows { alone += f.run(threads: 2, path: path, kind: .decoded, rows: r..<r + 1).out.map(\.bitPattern) }
            #expect(together == alone, "\(c) \(path)")
        }
    }
}
