import CKernels
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Engine

/// `ck_attention` (the blocked prefill kernel for prompt rows; split-K or the per-head kernel for
/// each decoded row) against a naive fp64 softmax attention over the same decoded cache rows.
@Suite struct AttentionTests {
    struct Case: Sendable, CustomStringConvertible {
        let heads: Int, kvHeads: Int, headDim: Int, rows: Int, start: Int, window: Int
        let format: ck_kv_format
        let reversed: Bool
        var description: String { "\(heads)/\(kvHeads)x\(headDim) rows \(rows) from \(start) window \(window) fmt \(format.rawValue)" }
    }

    static let cases: [Case] = [
        Case(heads: 9, kvHeads: 3, headDim: 64, rows: 37, start: 5, window: 0, format: CK_KV_F16, reversed: false),
        Case(heads: 4, kvHeads: 1, headDim: 256, rows: 13, start: 0, window: 7, format: CK_KV_Q8_0, reversed: false),
        Case(heads: 4, kvHeads: 2, headDim: 32, rows: 5, start: 70, window: 0, format: CK_KV_MXFP8_E4M3, reversed: true),
        Case(heads: 40, kvHeads: 1, headDim: 8, rows: 6, start: 1, window: 3, format: CK_KV_F16, reversed: false),
        Case(heads: 9, kvHeads: 3, headDim: 64, rows: 1, start: 100, window: 0, format: CK_KV_F16, reversed: false),
        Case(heads: 4, kvHeads: 1, headDim: 256, rows: 70, start: 3, window: 0, format: CK_KV_F16, reversed: false),
        // Decoded rows (split-K from 256 fp16 positions, the per-head kernel below): eight-position score blocks
        // plus a tail, windows starting mid-cache, head dims that are not a multiple of the
        // 64-wide V pass, single positions.
        Case(heads: 4, kvHeads: 1, headDim: 256, rows: 1, start: 300, window: 0, format: CK_KV_F16, reversed: false),
        Case(heads: 6, kvHeads: 2, headDim: 72, rows: 1, start: 20, window: 13, format: CK_KV_F16, reversed: false),
        Case(heads: 40, kvHeads: 1, headDim: 8, rows: 2, start: 0, window: 0, format: CK_KV_F16, reversed: false),
        // Block formats through the blocked prefill kernel (rows decoded with AVX2) at a GQA
        // shape, and one decode row (split-K) with a window.
        Case(heads: 9, kvHeads: 3, headDim: 64, rows: 37, start: 300, window: 0, format: CK_KV_Q8_0, reversed: false),
        Case(heads: 8, kvHeads: 2, headDim: 64, rows: 20, start: 90, window: 40, format: CK_KV_MXFP8_E4M3, reversed: false),
        Case(heads: 4, kvHeads: 1, headDim: 256, rows: 1, start: 400, window: 128, format: CK_KV_Q8_0, reversed: false),
        // A window much shorter than the rows: a unit's later lanes see nothing in its first
        // chunks of positions (the online softmax's running max stays -inf there), and its
        // earlier lanes nothing in the last ones.
        Case(heads: 4, kvHeads: 1, headDim: 64, rows: 48, start: 200, window: 5, format: CK_KV_F16, reversed: false),
        // A head dim that is not a multiple of 8: prompt rows through the blocked kernel on ref's
        // scalar phases (every path), a decoded row under 256 positions split-K.
        Case(heads: 4, kvHeads: 2, headDim: 36, rows: 9, start: 20, window: 0, format: CK_KV_F16, reversed: false),
        Case(heads: 4, kvHeads: 2, headDim: 36, rows: 1, start: 40, window: 0, format: CK_KV_F16, reversed: false),
    ]

    /// The fp16 cache row (F16C on the SIMD paths) holds exactly the portable conversion's bits,
    /// ties, subnormals, overflow and infinities included.
    @Test func fp16StoreMatchesScalarConversion() {
        var x = gaussians(203, seed: 21, scale: 3)
        x += [0, -0.0, 65504, 65519.99, 65520, -70000, .infinity, -.infinity, 0x1p-24, 0x1p-25, 0x1.8p-24, 0x1p-14,
              0x1.ffcp-15, 1 + 0x1p-11, 1 + 0x3p-11, 5.9604645e-8, 1e-9]
        var row = [UInt16](repeating: 0, count: x.count)
        x.withUnsafeBufferPointer { xp in row.withUnsafeMutableBytes { ck_kv_store_row(CK_KV_F16, xp.baseAddress, $0.baseAddress, Int64(x.count)) } }
        for (i, v) in x.enumerated() { #expect(row[i] == ck_fp32_to_fp16(v), "element \(i): \(v)") }
    }

    /// The blocked prefill kernel's phases on every SIMD path (AVX-512's 16-lane tiles native
    /// and emulated) give the AVX2 phases' outputs bit for bit: each output is the same sum in the
    /// same order. Row counts that leave a unit with 8 or 40 query lanes (not a multiple of 16),
    /// head dims with and without a 64-wide value tile. Over a q8_0 cache every path computes in
    /// integers (an int16 query and int16 weights), within attentionTolerance of fp64.
    @Test(arguments: [
        Case(heads: 9, kvHeads: 3, headDim: 64, rows: 37, start: 300, window: 0, format: CK_KV_F16, reversed: false),
        Case(heads: 4, kvHeads: 1, headDim: 256, rows: 22, start: 90, window: 40, format: CK_KV_Q8_0, reversed: false),
        Case(heads: 9, kvHeads: 3, headDim: 64, rows: 37, start: 61, window: 0, format: CK_KV_Q8_0, reversed: true),
        Case(heads: 6, kvHeads: 2, headDim: 96, rows: 11, start: 50, window: 9, format: CK_KV_Q8_0, reversed: false),
        Case(heads: 4, kvHeads: 2, headDim: 80, rows: 10, start: 5, window: 0, format: CK_KV_F16, reversed: true),
        Case(heads: 8, kvHeads: 1, headDim: 48, rows: 7, start: 33, window: 0, format: CK_KV_MXFP8_E4M3, reversed: false),
        // The softmax's masked chunks, lanes that see no position in a chunk, and a max that
        // grows in some lanes of a 16-lane vector but not in others.
        Case(heads: 4, kvHeads: 1, headDim: 64, rows: 48, start: 200, window: 5, format: CK_KV_F16, reversed: false),
        Case(heads: 6, kvHeads: 2, headDim: 32, rows: 13, start: 0, window: 0, format: CK_KV_F16, reversed: true),
    ])
    func everyPathsTilesMatchAVX2(_ c: Case) {
        let f = Fixture(c, seeds: (41, 42, 43))
        let (avx2, _) = f.run(threads: 2, path: .avx2)
        if c.format == CK_KV_Q8_0 { #expect(f.worstError(avx2) < attentionTolerance(format: c.format, int16Query: true, headDim: c.headDim), "\(c)") }
        for path in simdPaths where path != .avx2 {
            let (out, ran) = f.run(threads: 2, path: path)
            #expect(ran, "\(c): the blocked kernel did not run on \(path)")
            let bad = zip(avx2, out).filter { $0.bitPattern != $1.bitPattern }.count
            #expect(bad == 0, "\(c) \(path): \(bad) of \(out.count) outputs differ from avx2")
        }
    }

    /// One case's cache (stored from gaussian K/V rows), what it decodes to, the queries and
    /// their positions.
    struct Fixture {
        let c: Case
        let kvDim: Int, qDim: Int, capacity: Int, rowBytes: Int
        let k: [UInt8], v: [UInt8]
        let kf: [Float], vf: [Float]
        let q: [Float]
        let positions: [Int64]

        init(_ c: Case, seeds: (k: UInt64, v: UInt64, q: UInt64)) {
            self.c = c
            kvDim = c.kvHeads * c.headDim
            qDim = c.heads * c.headDim
            capacity = c.start + c.rows + 3
            rowBytes = Int(ck_kv_row_bytes(c.format, Int64(kvDim)))
            let filled = c.start + c.rows, kvDim = kvDim
            let kx = gaussians(filled * kvDim, seed: seeds.k), vx = gaussians(filled * kvDim, seed: seeds.v)
            (k, v, kf, vf) = storedCache(c.format, k: kx, v: vx, kvDim: kvDim, capacity: capacity)
            q = gaussians(c.rows * qDim, seed: seeds.q, scale: 0.4)
            positions = (0..<c.rows).map { Int64(c.start + (c.reversed ? c.rows - 1 - $0 : $0)) }
        }

        /// ck_attention on the active path (path nil) or on `path` (ck_attention_on, every kernel
        /// from that path's table), the rows as `kind` (nil: prompt rows from 4 rows, decoded ones
        /// below, as the cases were chosen); `rows`: only those query rows (nil: all), over `cache`
        /// in place of the fixture's rows when given; `ran`: whether the path ran.
        func run(threads: Int, path: KernelPath? = nil, kind: RowKind? = nil, rows: Range<Int>? = nil,
                 cache: (k: [UInt8], v: [UInt8])? = nil) -> (out: [Float], ran: Bool) {
            let kind = kind ?? (c.rows >= 4 ? .prompt : .decoded), rows = rows ?? 0..<c.rows
            var out = [Float](repeating: .nan, count: rows.count * qDim)
            let stride = Int(ck_attention_scratch_floats(Int64(capacity), Int64(c.heads), Int64(c.headDim)))
            var scratch = [Float](repeating: 0, count: threads * stride)
            var ran = true
            let kq = Array(q[rows.lowerBound * qDim..<rows.upperBound * qDim]), kpos = Array(positions[rows])
            (cache?.k ?? k).withUnsafeBytes { k in
                (cache?.v ?? v).withUnsafeBytes { v in
                    kq.withUnsafeBufferPointer { qp in
                        kpos.withUnsafeBufferPointer { pos in
                            out.withUnsafeMutableBufferPointer { o in
                                scratch.withUnsafeMutableBufferPointer { s in
                                    var d = ck_attention_desc(
                                        q: qp.baseAddress, q_stride: Int64(qDim), k: k.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                        v: v.baseAddress!.assumingMemoryBound(to: UInt8.self), row_bytes: Int64(rowBytes), format: c.format,
                                        positions: pos.baseAddress, rows: Int64(rows.count), heads: Int64(c.heads), kv_heads: Int64(c.kvHeads),
                                        head_dim: Int64(c.headDim), window: Int64(c.window), out: o.baseAddress, out_stride: Int64(qDim),
                                        scratch: s.baseAddress, scratch_stride: Int64(stride), kind: kind.ck)
                                    if let path { ran = ck_attention_on(&d, Int32(threads), path.rawValue) == 1 }
                                    else { ck_attention(&d, Int32(threads), -1) }
                                }
                            }
                        }
                    }
                }
            }
            return (out, ran)
        }

        /// The largest absolute difference of `out` from the naive fp64 attention.
        func worstError(_ out: [Float]) -> Double {
            var worst = 0.0
            for r in 0..<c.rows {
                let last = Int(positions[r]), first = c.window > 0 ? max(0, last - c.window + 1) : 0
                let expected = referenceAttention(q: q, qOffset: r * qDim, k: kf, v: vf, heads: c.heads, kvHeads: c.kvHeads,
                                                  headDim: c.headDim, first: first, last: last)
                for i in 0..<qDim { worst = max(worst, abs(expected[i] - Double(out[r * qDim + i]))) }
            }
            return worst
        }
    }

    @Test(arguments: cases, [1, 2])
    func matchesNaive(_ c: Case, threads: Int) {
        let f = Fixture(c, seeds: (11, 12, 13))
        let worst = f.worstError(f.run(threads: threads).out)
        // q8_0: split-K and the blocked kernel, the kernels of every q8_0 row, round the query to int16.
        #expect(worst < attentionTolerance(format: c.format, int16Query: true, headDim: c.headDim), "max abs error \(worst)")
    }
}
