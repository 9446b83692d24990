import TestSupport
import CKernels
import Foundation
import Testing

/// The row-parallel drivers (ops_rows.c) against a plain loop of the single-row ops, bit for bit,
/// on batches large enough to be split over threads (and on one row, which is not), and GeGLU's
/// AVX2 twin against its reference.
@Suite struct RowOpsTests {
    /// Row counts: one row (never parallel), a few rows (under the parallel threshold), a
    /// prefill-sized batch with an odd count (uneven split).
    static let rowCounts = [1, 3, 97]

    /// Runs `batched` on a copy of `y` with 1 and 3 threads and `single` row by row on another; all equal.
    static func check(_ y: [Float], rows: Int, cols: Int, _ name: String,
                      batched: (UnsafeMutablePointer<Float>, Int32) -> Void,
                      single: (UnsafeMutablePointer<Float>, Int) -> Void) {
        var expected = y
        expected.withUnsafeMutableBufferPointer { e in
            for r in 0..<rows { single(e.baseAddress! + r * cols, r) }
        }
        for threads: Int32 in [1, 2, 3] {
            var got = y
            got.withUnsafeMutableBufferPointer { batched($0.baseAddress!, threads) }
            #expect(got.elementsEqual(expected) { $0.bitPattern == $1.bitPattern }, "\(name): \(rows) rows, \(threads) threads")
        }
    }

    @Test(arguments: rowCounts) func rmsNormPerHeadAndWhole(rows: Int) {
        let cols = 4 * 256
        let x = gaussians(rows * cols, seed: 1, scale: 3)
        for width in [cols, 256, 64] {
            let w = gaussians(width, seed: 2)
            w.withUnsafeBufferPointer { wp in
                x.withUnsafeBufferPointer { xp in
                    Self.check([Float](repeating: 0, count: rows * cols), rows: rows, cols: cols, "rmsNorm width \(width)",
                               batched: { ck_rms_norm_rows(xp.baseAddress!, $0, Int64(rows), Int64(cols), wp.baseAddress!, Int64(width), 1e-6, $1, -1) },
                               single: { y, r in
                                   for v in stride(from: 0, to: cols, by: width) {
                                       ck_rms_norm(xp.baseAddress! + r * cols + v, wp.baseAddress!, y + v, Int64(width), 1e-6)
                                   }
                               })
                    // In place (y = x), as the per-head Q/K norms run.
                    Self.check(x, rows: rows, cols: cols, "rmsNorm in place width \(width)",
                               batched: { ck_rms_norm_rows($0, $0, Int64(rows), Int64(cols), wp.baseAddress!, Int64(width), 1e-6, $1, -1) },
                               single: { y, _ in
                                   for v in stride(from: 0, to: cols, by: width) { ck_rms_norm(y + v, wp.baseAddress!, y + v, Int64(width), 1e-6) }
                               })
                }
            }
        }
    }

    /// The four-vector RMSNorm against four single calls, bit for bit: a width with a scalar tail
    /// (36), an all-zero vector, huge and tiny magnitudes, and in place.
    @Test func rmsNorm4MatchesSingleVectors() {
        guard ck_best_kernel_path() != CK_PATH_REF else { return }
        for width in [36, 640] {
            var x = gaussians(4 * width, seed: 21, scale: 2)
            for i in 0..<width { x[i] = 0 }                      // vector 0: all zero
            for i in width..<(2 * width) { x[i] *= 1e18 }         // vector 1: huge
            for i in (2 * width)..<(3 * width) { x[i] *= 1e-20 }  // vector 2: tiny (squares underflow fp32)
            let w = gaussians(width, seed: 22)
            var expected = x, got = [Float](repeating: .nan, count: 4 * width), inPlace = x
            w.withUnsafeBufferPointer { wp in
                expected.withUnsafeMutableBufferPointer { e in
                    for v in 0..<4 { ck_rms_norm(e.baseAddress! + v * width, wp.baseAddress!, e.baseAddress! + v * width, Int64(width), 1e-6) }
                }
                x.withUnsafeBufferPointer { xp in
                    got.withUnsafeMutableBufferPointer { ck_rms_norm4_avx2(xp.baseAddress!, wp.baseAddress!, $0.baseAddress!, Int64(width), 1e-6) }
                }
                inPlace.withUnsafeMutableBufferPointer { ck_rms_norm4_avx2($0.baseAddress!, wp.baseAddress!, $0.baseAddress!, Int64(width), 1e-6) }
            }
            #expect(got.elementsEqual(expected) { $0.bitPattern == $1.bitPattern }, "width \(width)")
            #expect(inPlace.elementsEqual(expected) { $0.bitPattern == $1.bitPattern }, "width \(width) in place")
        }
    }

    /// The batched rope, angles computed once (ck_rope_angles_rows) and applied per tensor
    /// (ck_rope_rows_angles), gives ck_rope's bits row by row, both styles: SmolLM2-like heads
    /// rotating 48 of 64 dims, and Gemma-like 256-dim heads whose 128 pairs span ck_rope's two
    /// 64-pair angle chunks.
    @Test(arguments: rowCounts) func ropeFromSharedAngles(rows: Int) {
        for (heads, headDim, rotary, base) in [(9, 64, 48, Float(10_000)), (4, 256, 256, 1_000_000)] {
            let cols = heads * headDim, width = rotary / 2 * 2
            let positions = (0..<rows).map { Int64(5 + 1031 * $0) }
            let x = gaussians(rows * cols, seed: 6)
            var angles = [Float](repeating: .nan, count: max(1, rows * width))
            for neox: Int32 in [0, 1] {
                positions.withUnsafeBufferPointer { p in
                    Self.check(x, rows: rows, cols: cols, "rope \(heads)x\(headDim)/\(rotary) neox \(neox) from angles",
                               batched: { y, t in
                                   angles.withUnsafeMutableBufferPointer { a in
                                       ck_rope_angles_rows(a.baseAddress!, Int64(rows), p.baseAddress!, Int64(rotary), base, t)
                                       ck_rope_rows_angles(y, Int64(rows), a.baseAddress!, Int64(heads), Int64(headDim), Int64(rotary), neox, t)
                                   }
                               },
                               single: { y, r in ck_rope(y, Int64(heads), Int64(headDim), Int64(rotary), p[r], base, neox) })
                }
            }
        }
    }

    @Test(arguments: rowCounts) func elementwise(rows: Int) {
        let cols = 1536 + 5   // not a multiple of 8: each row has a scalar tail, as in the row loop
        let y = gaussians(rows * cols, seed: 4, scale: 4), x = gaussians(rows * cols, seed: 5)
        x.withUnsafeBufferPointer { xp in
            let xb = xp.baseAddress!
            Self.check(y, rows: rows, cols: cols, "swiglu",
                       batched: { ck_swiglu_rows($0, xb, Int64(rows), Int64(cols), $1, -1) },
                       single: { g, r in ck_swiglu(g, xb + r * cols, Int64(cols)) })
            Self.check(y, rows: rows, cols: cols, "geglu",
                       batched: { ck_geglu_rows($0, xb, Int64(rows), Int64(cols), $1, -1) },
                       single: { g, r in ck_geglu(g, xb + r * cols, Int64(cols)) })
            Self.check(y, rows: rows, cols: cols, "add",
                       batched: { ck_add_rows($0, xb, Int64(rows), Int64(cols), $1) },
                       single: { v, r in ck_add(v, xb + r * cols, Int64(cols)) })
            Self.check(y, rows: rows, cols: cols, "scale",
                       batched: { ck_scale_rows($0, 0.0625, Int64(rows), Int64(cols), $1) },
                       single: { v, _ in ck_scale(v, 0.0625, Int64(cols)) })
        }
    }

    @Test(arguments: rowCounts) func kvStoreEveryFormat(rows: Int) {
        let n = 256, capacity = 3 * rows + 2
        let k = gaussians(rows * n, seed: 6), v = gaussians(rows * n, seed: 7)
        let positions = (0..<rows).map { Int64(capacity - 1 - 3 * $0) }   // scattered, descending
        for format in [CK_KV_F16, CK_KV_Q8_0, CK_KV_MXFP8_E4M3] {
            let rb = Int(ck_kv_row_bytes(format, Int64(n)))
            var expectedK = [UInt8](repeating: 0, count: capacity * rb), expectedV = expectedK
            for r in 0..<rows {
                let o = Int(positions[r]) * rb
                for (src, dst) in [(k, 0), (v, 1)] {
                    let row = Array(src[r * n..<(r + 1) * n])
                    if dst == 0 { expectedK.withUnsafeMutableBytes { ck_kv_store_row(format, row, $0.baseAddress! + o, Int64(n)) } }
                    else { expectedV.withUnsafeMutableBytes { ck_kv_store_row(format, row, $0.baseAddress! + o, Int64(n)) } }
                }
            }
            for threads: Int32 in [1, 2, 3] {
                var gotK = [UInt8](repeating: 0, count: capacity * rb), gotV = gotK
                gotK.withUnsafeMutableBufferPointer { kc in
                    gotV.withUnsafeMutableBufferPointer { vc in
                        ck_kv_store_rows(format, k, v, Int64(rows), Int64(n), positions, kc.baseAddress!, vc.baseAddress!,
                                         Int64(rb), threads, -1)
                    }
                }
                #expect(gotK == expectedK && gotV == expectedV, "format \(format.rawValue), \(rows) rows, \(threads) threads")
            }
        }
    }

    /// The F16C row conversion (KV cache store) equals ck_fp32_to_fp16 on every value: random,
    /// fp16 subnormal and overflow ranges, fp32 subnormals, ties, infinities and NaNs.
    @Test func fp16RowConversionMatchesScalar() {
        guard ck_best_kernel_path() != CK_PATH_REF else { return }
        var x = gaussians(4001, seed: 31, scale: 100)
        x += gaussians(1000, seed: 32, scale: 1e-6) + gaussians(1000, seed: 33, scale: 1e5)
        x += [0, -0, 0x1p-130, -0x1p-130, 0x1p-25, 0x1.8p-25, 0x1p-24, 65504, 65519.99, 65520, -65520, 1e30,
              .infinity, -.infinity, .nan, -.nan, Float(bitPattern: 0x7F80_0001), Float(bitPattern: 0xFFA0_1234),
              1 + 0x1p-11, 1 + 0x1.8p-11, 1 + 0x1p-10 + 0x1p-11]
        var got = [UInt16](repeating: 0, count: x.count)
        got.withUnsafeMutableBufferPointer { ck_fp32_to_fp16_row_avx2(x, $0.baseAddress!, Int64(x.count)) }
        let mismatches = x.indices.filter { got[$0] != ck_fp32_to_fp16(x[$0]) }
        #expect(mismatches.isEmpty, "\(mismatches.count) differ, first \(mismatches.first.map { "\(x[$0])" } ?? "")")
    }

    /// The AVX2 Q8_0 row quantizer (KV cache store) writes the reference's bytes: random rows at
    /// several scales, blocks whose scaled values land on halves (roundf rounds them away from
    /// zero, where the SIMD rounding modes would not), just below halves, an all-zero block, a
    /// block with fp32 subnormals, and NaNs, which both skip in the block's maximum.
    @Test func q8_0RowQuantizerMatchesReference() {
        guard ck_best_kernel_path() != CK_PATH_REF else { return }
        var x: [Float] = gaussians(32 * 64, seed: 41, scale: 3)
        x += gaussians(32 * 8, seed: 42, scale: 1e-3)
        x += gaussians(32 * 8, seed: 43, scale: 1e4)
        // amax 127, so d = 1 and the codes are the values rounded: ties of both signs, and the
        // largest floats below 0.5 and 1.5.
        let ties: [Float] = [127, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 126.5, -126.5, 0.499_999_97, -0.499_999_97, 1.499_999_9,
                             -1.499_999_9, 63.5, -63.5, 0, -0]
        x += ties + [Float](repeating: 3.5, count: 32 - ties.count)
        x += [Float](repeating: 0, count: 32)
        x += (0..<32).map { (i: Int) -> Float in   // fp32 subnormals of both signs
            let magnitude = Float(bitPattern: UInt32(i * 977 + 1))
            return i % 2 == 0 ? magnitude : -magnitude
        }
        var withNaN = gaussians(32, seed: 44)
        withNaN[0] = .nan
        withNaN[31] = .nan
        x += withNaN.map { $0.isNaN ? 0 : $0 }   // NaN codes are undefined in C; the block's scale is checked below
        let blocks = x.count / 32
        var ref = [UInt8](repeating: 0, count: blocks * 34), avx = ref
        x.withUnsafeBufferPointer { xp in
            ref.withUnsafeMutableBytes { ck_kv_quantize_row_q8_0_ref(xp.baseAddress!, $0.baseAddress!.assumingMemoryBound(to: ck_block_q8_0.self), Int64(x.count)) }
            avx.withUnsafeMutableBytes { ck_kv_quantize_row_q8_0_avx2(xp.baseAddress!, $0.baseAddress!.assumingMemoryBound(to: ck_block_q8_0.self), Int64(x.count)) }
        }
        let differing = (0..<blocks).filter { ref[$0 * 34..<($0 + 1) * 34] != avx[$0 * 34..<($0 + 1) * 34] }
        #expect(differing.isEmpty, "blocks \(differing.prefix(5)) of \(blocks) differ")
        // The tie block's codes are roundf's, not just equal between the two.
        let tieCodes = (0..<ties.count).map { Int8(bitPattern: avx[(64 + 16) * 34 + 2 + $0]) }
        #expect(tieCodes == ties.map { Int8($0.rounded(.toNearestOrAwayFromZero)) })
        // NaNs do not enter the maximum: the block's scale is that of its other values.
        var nanBlock = [UInt8](repeating: 0, count: 34), noNaN = nanBlock
        withNaN.withUnsafeBufferPointer { xp in
            nanBlock.withUnsafeMutableBytes { ck_kv_quantize_row_q8_0_avx2(xp.baseAddress!, $0.baseAddress!.assumingMemoryBound(to: ck_block_q8_0.self), 32) }
        }
        withNaN.map { $0.isNaN ? 0 : $0 }.withUnsafeBufferPointer { xp in
            noNaN.withUnsafeMutableBytes { ck_kv_quantize_row_q8_0_ref(xp.baseAddress!, $0.baseAddress!.assumingMemoryBound(to: ck_block_q8_0.self), 32) }
        }
        #expect(nanBlock[0..<2] == noNaN[0..<2] && nanBlock[3..<33] == noNaN[3..<33])
    }

    /// GeGLU's AVX2 twin equals the reference bit for bit: on every fp16 value (each table entry,
    /// at both signs of `up`), on random gates, on the cut-offs and specials, and on a scalar tail.
    @Test func gegluAVX2MatchesReference() {
        guard ck_best_kernel_path() != CK_PATH_REF else { return }
        var gate = (0..<65536).map { Float(Float16(bitPattern: UInt16($0))) }
        gate += [-10, -9.999_999, 10, 9.999_999, -.infinity, .infinity, .nan, -.nan, 0x1p-130, -0x1p-130, 0x1p-25, 65504, 65520, 1e30]
        gate += gaussians(4003, seed: 8, scale: 6)
        var rng = SplitMix64(seed: 9)
        let up = gate.indices.map { _ in Float(rng.gaussian()) }
        var ref = gate, avx = gate
        up.withUnsafeBufferPointer { u in
            ref.withUnsafeMutableBufferPointer { ck_geglu_ref($0.baseAddress!, u.baseAddress!, Int64($0.count)) }
            avx.withUnsafeMutableBufferPointer { ck_geglu_avx2($0.baseAddress!, u.baseAddress!, Int64($0.count)) }
        }
        var mismatches = 0
        for i in gate.indices where ref[i].bitPattern != avx[i].bitPattern {
            mismatches += 1
            if mismatches <= 5 { Issue.record("gate \(gate[i]) up \(up[i]): ref \(ref[i]) avx2 \(avx[i])") }
        }
        #expect(mismatches == 0)
    }
}
