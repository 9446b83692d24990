import CKernels
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Engine

/// `ck_attention_split_k` (one decode row, positions cut into up to 16 ranges the threads take,
/// log-sum-exp merge) against the same naive fp64 softmax attention as AttentionTests, and against
/// itself on one thread, for every thread count 1–5:
/// windows, odd head dims (the scalar path), GQA ratios 1–8, positions from 0 to a few thousand,
/// fp16 and the block formats (q8_0, MXFP8 E4M3; the reference runs over what they decode to).
@Suite struct SplitKAttentionTests {
    struct Case: Sendable, CustomStringConvertible {
        let heads: Int, kvHeads: Int, headDim: Int, position: Int, window: Int
        var format: ck_kv_format = CK_KV_F16
        var description: String { "\(heads)/\(kvHeads)x\(headDim) at \(position) window \(window) fmt \(format.rawValue)" }
    }

    static let cases: [Case] = [
        Case(heads: 9, kvHeads: 3, headDim: 64, position: 3000, window: 0),     // SmolLM2's shape
        Case(heads: 4, kvHeads: 1, headDim: 256, position: 2100, window: 512),  // Gemma 3 local layer
        Case(heads: 4, kvHeads: 1, headDim: 256, position: 700, window: 0),     // Gemma 3 global layer
        Case(heads: 6, kvHeads: 2, headDim: 72, position: 1000, window: 0),     // V chunk tail
        Case(heads: 5, kvHeads: 5, headDim: 33, position: 1200, window: 100),   // odd dim, no GQA
        Case(heads: 8, kvHeads: 1, headDim: 20, position: 257, window: 0),      // GQA 8, odd dim
        Case(heads: 6, kvHeads: 3, headDim: 40, position: 4, window: 3),        // fewer positions than threads
        Case(heads: 8, kvHeads: 1, headDim: 16, position: 1, window: 0),
        Case(heads: 12, kvHeads: 4, headDim: 17, position: 0, window: 0),       // a single position
        Case(heads: 9, kvHeads: 3, headDim: 64, position: 19, window: 0),       // 8-position blocks + tail
        Case(heads: 12, kvHeads: 2, headDim: 64, position: 777, window: 0),     // GQA 6: heads 4 + 2 per pass
        Case(heads: 14, kvHeads: 2, headDim: 24, position: 50, window: 0),      // GQA 7, 8-dim V tail only
        // Block formats (AVX2: codes converted 8 at a time, one scale per 32-element block).
        Case(heads: 9, kvHeads: 3, headDim: 64, position: 3000, window: 0, format: CK_KV_Q8_0),
        Case(heads: 4, kvHeads: 1, headDim: 256, position: 2100, window: 512, format: CK_KV_Q8_0),
        Case(heads: 6, kvHeads: 2, headDim: 96, position: 300, window: 0, format: CK_KV_Q8_0),    // 32-dim V chunk tail
        Case(heads: 8, kvHeads: 1, headDim: 32, position: 5, window: 0, format: CK_KV_Q8_0),      // scores tail only
        Case(heads: 10, kvHeads: 2, headDim: 64, position: 333, window: 40, format: CK_KV_Q8_0),  // GQA 5: 4 + 1
        Case(heads: 3, kvHeads: 3, headDim: 32, position: 140, window: 0, format: CK_KV_Q8_0),    // 16-row and 64-row tails, odd rows
        Case(heads: 9, kvHeads: 3, headDim: 64, position: 1000, window: 0, format: CK_KV_MXFP8_E4M3),
        Case(heads: 4, kvHeads: 1, headDim: 256, position: 600, window: 100, format: CK_KV_MXFP8_E4M3),
        // More than 32 query heads (the scratch is sized by the heads, so split-K still applies).
        Case(heads: 40, kvHeads: 8, headDim: 64, position: 3000, window: 0, format: CK_KV_Q8_0),
        Case(heads: 48, kvHeads: 8, headDim: 128, position: 300, window: 0),
    ]

    /// One cache (in the case's format) and query row, plus what the cache decodes to.
    struct Fixture {
        let c: Case
        let rowBytes: Int, kvDim: Int, qDim: Int, capacity: Int
        let k: [UInt8], v: [UInt8]
        let kf: [Float], vf: [Float]
        let kx: [Float], vx: [Float]      // what the cache stored, before its rounding
        let q: [Float]

        init(_ c: Case) {
            let kvDim = c.kvHeads * c.headDim, capacity = c.position + 2
            let rowBytes = Int(ck_kv_row_bytes(c.format, Int64(kvDim)))
            self.c = c
            self.kvDim = kvDim
            self.capacity = capacity
            self.rowBytes = rowBytes
            qDim = c.heads * c.headDim
            let filled = c.position + 1
            let kx = gaussians(filled * kvDim, seed: 31), vx = gaussians(filled * kvDim, seed: 32)
            (k, v, kf, vf) = storedCache(c.format, k: kx, v: vx, kvDim: kvDim, capacity: capacity)
            self.kx = kx
            self.vx = vx
            q = gaussians(qDim, seed: 33, scale: 0.4)
        }

        /// Runs `split` (ck_attention_split_k, on `path` when given) or the dispatching
        /// ck_attention on `threads` threads.
        func run(threads: Int, split: Bool, path: KernelPath? = nil) -> (out: [Float], applied: Bool) {
            var out = [Float](repeating: .nan, count: qDim)
            let stride = Int(ck_attention_scratch_floats(Int64(capacity), Int64(c.heads), Int64(c.headDim)))
            var scratch = [Float](repeating: 0, count: threads * stride)
            var position = Int64(c.position)
            var applied = true
            k.withUnsafeBytes { kp in
                v.withUnsafeBytes { vp in
                    q.withUnsafeBufferPointer { qp in
                        out.withUnsafeMutableBufferPointer { o in
                            scratch.withUnsafeMutableBufferPointer { s in
                                withUnsafePointer(to: &position) { pos in
                                    var d = ck_attention_desc(
                                        q: qp.baseAddress, q_stride: Int64(qDim), k: kp.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                        v: vp.baseAddress!.assumingMemoryBound(to: UInt8.self), row_bytes: Int64(rowBytes),
                                        format: c.format, positions: pos, rows: 1, heads: Int64(c.heads),
                                        kv_heads: Int64(c.kvHeads), head_dim: Int64(c.headDim), window: Int64(c.window),
                                        out: o.baseAddress, out_stride: Int64(qDim), scratch: s.baseAddress,
                                        scratch_stride: Int64(stride), kind: CK_ROWS_DECODED)
                                    if let path { applied = ck_attention_split_k_on(&d, Int32(threads), path.rawValue) == 1 }
                                    else if split { applied = ck_attention_split_k(&d, Int32(threads)) == 1 }
                                    else { ck_attention(&d, Int32(threads), -1) }
                                }
                            }
                        }
                    }
                }
            }
            return (out, applied)
        }

        /// Naive fp64 softmax attention over the decoded cache, or (`stored`) over the fp32 rows
        /// the cache was given.
        func reference(stored: Bool = false) -> [Double] {
            let last = c.position, first = c.window > 0 ? max(0, last - c.window + 1) : 0
            return referenceAttention(q: q, k: stored ? kx : kf, v: stored ? vx : vf, heads: c.heads, kvHeads: c.kvHeads,
                                      headDim: c.headDim, first: first, last: last)
        }
    }

    /// Every path's units (ref, AVX2, the AVX-512 fp16 and q8_0 units native and emulated) at every
    /// thread count.
    @Test(arguments: cases)
    func matchesNaiveAtEveryThreadCount(_ c: Case) {
        let f = Fixture(c)
        let expected = f.reference()
        for path in [KernelPath.ref] + simdPaths {
            for threads in 1...5 {
                let (out, applied) = f.run(threads: threads, split: true, path: path)
                #expect(applied, "\(path): split-K declined at \(threads) threads")
                var worst = 0.0
                for i in 0..<f.qDim { worst = max(worst, abs(expected[i] - Double(out[i]))) }
                #expect(worst < attentionTolerance(format: c.format, int16Query: true, headDim: c.headDim), "\(path) \(threads) threads: max abs error \(worst)")
                // Range boundaries and merge order fixed by the positions alone: bit for bit the
                // same on a second run and on one thread.
                let again = f.run(threads: threads, split: true, path: path).out
                #expect(out.map(\.bitPattern) == again.map(\.bitPattern), "\(path) \(threads) threads: not deterministic")
                let one = f.run(threads: 1, split: true, path: path).out
                #expect(out.map(\.bitPattern) == one.map(\.bitPattern), "\(path) \(threads) threads: not one thread's bits")
            }
        }
    }

    /// The emulated AVX-512 fp16 and q8_0 units are the native ones, bit for bit (where the CPU has
    /// AVX-512).
    @Test(.enabled(if: KernelPath.avx512.isSupported),
          arguments: cases.filter { ($0.format == CK_KV_F16 && $0.headDim % 16 == 0) || $0.format == CK_KV_Q8_0 })
    func emulatedUnitIsTheNativeOne(_ c: Case) {
        let f = Fixture(c)
        for threads in [1, 2] {
            #expect(f.run(threads: threads, split: true, path: .avx512).out.map(\.bitPattern)
                    == f.run(threads: threads, split: true, path: .avx512Emulated).out.map(\.bitPattern), "\(threads) threads")
        }
    }

    /// What the q8_0 path's int16 rounding adds is small next to what the q8_0 cache itself costs:
    /// its error against the decoded cache is under a twentieth of the decoded cache's error
    /// against the fp32 rows it stored (measured: 1/150 to 1/350), on every SIMD path's unit.
    @Test(arguments: cases.filter { $0.format == CK_KV_Q8_0 })
    func q8RoundingSmallNextToTheCache(_ c: Case) {
        let f = Fixture(c)
        let decoded = f.reference(), stored = f.reference(stored: true)
        for path in simdPaths {
            let out = f.run(threads: 2, split: true, path: path).out
            var kernel = 0.0, cache = 0.0
            for i in 0..<f.qDim {
                kernel = max(kernel, abs(decoded[i] - Double(out[i])))
                cache = max(cache, abs(stored[i] - decoded[i]))
            }
            #expect(kernel < cache / 20, "\(path): kernel error \(kernel), the cache's own \(cache)")
        }
    }

    /// ck_attention hands an fp16 decode row to split-K (same bits as calling it) from
    /// CK_SPLIT_MIN_POSITIONS visible positions, and at any depth when its head dim is not a
    /// multiple of 8 (the per-head kernel's width), on any thread count.
    @Test func dispatch() {
        for c in [Case(heads: 9, kvHeads: 3, headDim: 64, position: 600, window: 0),
                  Case(heads: 4, kvHeads: 1, headDim: 256, position: 1500, window: Int(CK_SPLIT_MIN_POSITIONS)),
                  Case(heads: 5, kvHeads: 5, headDim: 33, position: 100, window: 0),
                  Case(heads: 8, kvHeads: 1, headDim: 20, position: 3, window: 0)] {
            let f = Fixture(c)
            for threads in 1...3 {
                #expect(f.run(threads: threads, split: false).out.map(\.bitPattern)
                        == f.run(threads: threads, split: true).out.map(\.bitPattern), "\(c) at \(threads) threads")
            }
        }
    }

    /// ck_attention hands every decode row over a block-format cache to split-K, short contexts
    /// and one thread included (same bits as calling it directly).
    @Test func dispatchBlockFormats() {
        for c in [Case(heads: 9, kvHeads: 3, headDim: 64, position: 40, window: 0, format: CK_KV_Q8_0),
                  Case(heads: 4, kvHeads: 1, headDim: 256, position: 700, window: 0, format: CK_KV_MXFP8_E4M3)] {
            let f = Fixture(c)
            for threads in 1...2 {
                #expect(f.run(threads: threads, split: false).out.map(\.bitPattern)
                        == f.run(threads: threads, split: true).out.map(\.bitPattern), "\(c) at \(threads) threads")
            }
        }
    }

    /// Several rows are not split-K's: it declines and leaves them to ck_attention.
    @Test func declinesSeveralRows() {
        var d = ck_attention_desc()
        d.rows = 2
        d.format = CK_KV_F16
        #expect(ck_attention_split_k(&d, 2) == 0)
    }
}
