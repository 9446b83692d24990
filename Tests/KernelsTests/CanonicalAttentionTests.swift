import CKernels
import Testing
@testable import Engine

/// One order for attention (docs/kernels.md): `ck_attention` on every SIMD path, native and
/// emulated, gives `ref`'s output bit for bit, at 1 and 2 threads, for prompt rows (the blocked
/// kernel; calls of 1-3 prompt rows in RowKindAttentionTests), short fp16 decoded rows, one or
/// several to a call (the per-head kernel), and decoded rows split-K, over fp16, q8_0 and MXFP8
/// caches (q8_0 in its integer scheme on every path).
/// Time cap: ~25 s on 2 vCPUs (ref's scalar kernels over a few thousand positions).
@Suite struct CanonicalAttentionTests {
    static let cases: [AttentionTests.Case] = AttentionTests.cases + [
        // Split-K shapes: SmolLM2's and Gemma 3's at depth, a window, ranges longer than 32
        // positions with a tail, a V chunk tail (head dim 72), an odd head dim (the scalar unit).
        .init(heads: 9, kvHeads: 3, headDim: 64, rows: 1, start: 3000, window: 0, format: CK_KV_F16, reversed: false),
        .init(heads: 4, kvHeads: 1, headDim: 256, rows: 1, start: 2100, window: 512, format: CK_KV_F16, reversed: false),
        .init(heads: 6, kvHeads: 2, headDim: 72, rows: 1, start: 1000, window: 0, format: CK_KV_F16, reversed: false),
        .init(heads: 5, kvHeads: 5, headDim: 33, rows: 1, start: 1200, window: 100, format: CK_KV_F16, reversed: false),
        .init(heads: 9, kvHeads: 3, headDim: 64, rows: 1, start: 1000, window: 0, format: CK_KV_MXFP8_E4M3, reversed: false),
        .init(heads: 4, kvHeads: 1, headDim: 256, rows: 1, start: 600, window: 100, format: CK_KV_MXFP8_E4M3, reversed: false),
        .init(heads: 12, kvHeads: 2, headDim: 64, rows: 1, start: 777, window: 0, format: CK_KV_F16, reversed: false),
        // q8_0 split-K: one and two blocks per head (exact block dots), three and eight (the
        // 16-lane tree); ranges longer than one 64-row V block with a tail of fewer than eight
        // rows; a window; four heads per KV head and three.
        .init(heads: 9, kvHeads: 3, headDim: 64, rows: 1, start: 3000, window: 0, format: CK_KV_Q8_0, reversed: false),
        .init(heads: 4, kvHeads: 1, headDim: 256, rows: 1, start: 2100, window: 512, format: CK_KV_Q8_0, reversed: false),
        .init(heads: 6, kvHeads: 2, headDim: 96, rows: 1, start: 1000, window: 0, format: CK_KV_Q8_0, reversed: false),
        .init(heads: 4, kvHeads: 4, headDim: 32, rows: 1, start: 77, window: 0, format: CK_KV_Q8_0, reversed: false),
        .init(heads: 8, kvHeads: 2, headDim: 64, rows: 1, start: 1200, window: 100, format: CK_KV_Q8_0, reversed: false),
        // The per-head kernel: fp16 decoded rows below 256 positions, alone and three to a
        // call, with position counts that leave a tail of fewer than eight.
        .init(heads: 9, kvHeads: 3, headDim: 64, rows: 1, start: 203, window: 0, format: CK_KV_F16, reversed: false),
        .init(heads: 4, kvHeads: 1, headDim: 80, rows: 3, start: 50, window: 0, format: CK_KV_F16, reversed: true),
        // Jobs of four and five heads (passes of two, an odd last one), head dims with a last
        // eight dims (scores' tail positions, the V pass's last chunk), a row with fewer than
        // eight positions (no whole group).
        .init(heads: 8, kvHeads: 2, headDim: 72, rows: 3, start: 100, window: 0, format: CK_KV_F16, reversed: false),
        .init(heads: 5, kvHeads: 1, headDim: 40, rows: 2, start: 4, window: 0, format: CK_KV_F16, reversed: true),
        // Prefill over MXFP8 and q8_0 with a window, through ref's portable blocked kernel.
        .init(heads: 4, kvHeads: 1, headDim: 256, rows: 22, start: 90, window: 40, format: CK_KV_Q8_0, reversed: false),
        .init(heads: 8, kvHeads: 1, headDim: 48, rows: 7, start: 33, window: 0, format: CK_KV_MXFP8_E4M3, reversed: false),
        // q8_0 prefill: odd chunk tails (an unpaired last position), head dims 64 and 96.
        .init(heads: 9, kvHeads: 3, headDim: 64, rows: 37, start: 61, window: 0, format: CK_KV_Q8_0, reversed: true),
        .init(heads: 6, kvHeads: 2, headDim: 96, rows: 11, start: 50, window: 9, format: CK_KV_Q8_0, reversed: false),
    ]

    /// The per-head kernel's jobs at 3 and 4 threads, where a thread's run of heads starts or
    /// ends inside a KV head's group and a job's successor (whose rows it prefetches) is in the
    /// next row; head dims 24 and 48 (a score tail of 16 + 8 dims, V passes of 24 and 32 + 16).
    @Test(arguments: [
        AttentionTests.Case(heads: 9, kvHeads: 3, headDim: 64, rows: 2, start: 30, window: 0, format: CK_KV_F16, reversed: false),
        AttentionTests.Case(heads: 6, kvHeads: 2, headDim: 24, rows: 3, start: 12, window: 0, format: CK_KV_F16, reversed: true),
        AttentionTests.Case(heads: 8, kvHeads: 2, headDim: 48, rows: 3, start: 40, window: 17, format: CK_KV_F16, reversed: false),
    ])
    func perHeadJobsAtMoreThreads(_ c: AttentionTests.Case) {
        let f = AttentionTests.Fixture(c, seeds: (54, 55, 56))
        let ref = f.run(threads: 1, path: .ref).out
        for path in simdPaths {
            for threads in [3, 4] {
                let out = f.run(threads: threads, path: path).out
                let bad = zip(ref, out).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(bad == 0, "\(c) \(path) \(threads) threads: \(bad) of \(out.count) outputs differ from ref")
            }
        }
    }

    /// NaN scores (K rows of NaN at positions 4-7 of twelve) are skipped by the softmax's max on
    /// every path as ref's `>` skips them: a NaN lane of a vector max must not drop the larger
    /// scores of positions 0-3 (the outputs stay finite, e^NaN being clamped, and depend on it).
    @Test func nanScoresAreSkippedByTheMax() {
        let c = AttentionTests.Case(heads: 4, kvHeads: 1, headDim: 64, rows: 2, start: 11, window: 0, format: CK_KV_F16, reversed: false)
        let f = AttentionTests.Fixture(c, seeds: (57, 58, 59))
        var k = f.k
        for p in 4..<8 { for b in stride(from: p * f.rowBytes, to: (p + 1) * f.rowBytes, by: 2) { k[b] = 0x00; k[b + 1] = 0x7E } }
        for threads in [1, 2] {
            let ref = f.run(threads: threads, path: .ref, cache: (k, f.v)).out
            #expect(ref.allSatisfy { $0.isFinite })
            for path in simdPaths {
                let out = f.run(threads: threads, path: path, cache: (k, f.v)).out
                let bad = zip(ref, out).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(bad == 0, "\(path) \(threads) threads: \(bad) of \(out.count) outputs differ from ref")
            }
        }
    }

    @Test(arguments: cases)
    func everyPathGivesRefsBits(_ c: AttentionTests.Case) {
        let f = AttentionTests.Fixture(c, seeds: (51, 52, 53))
        for threads in [1, 2] {
            let (ref, ran) = f.run(threads: threads, path: .ref)
            #expect(ran)
            for path in simdPaths {
                let out = f.run(threads: threads, path: path).out
                let bad = zip(ref, out).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(bad == 0, "\(c) \(path) \(threads) threads: \(bad) of \(out.count) outputs differ from ref")
            }
        }
    }
}
