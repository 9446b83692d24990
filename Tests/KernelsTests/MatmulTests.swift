import TestSupport
import CKernels
import Testing
@testable import Engine

let allFormats: [WeightFormat] = [.q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .iq4_nl, .iq4_xs, .q3_K, .q4_K, .q5_K, .q6_K, .f16, .bf16, .f32, .mxint8, .mxfp8_e4m3, .mxfp8_e5m2, .mxfp4]
/// Every path this CPU runs but the reference: the native ones it has, and the emulated AVX-512
/// (SIMDe) and AMX (portable tiles) builds, which run on any x86-64 CPU with AVX2.
let simdPaths: [KernelPath] = KernelPath.allCases.filter { $0 != .ref && $0.isSupported }

/// K for a format: a whole number of blocks, not a multiple of any SIMD tile beyond the block.
func oddK(_ f: WeightFormat) -> Int { f.blockSize == 256 ? 768 : 96 }

@Suite struct MatmulTests {
    /// Activation quantization, every scheme: |q| <= 127; q and the scale follow the scheme's
    /// definition (Q8_0 / Q8_1 / Q8_K as llama.cpp's x86 quantizers, Q8_32 ours); reconstruction
    /// within half a step (plus the fp16 rounding of the scale); block sums exact; and every path
    /// produces the same bytes.
    @Test(arguments: ActivationQuantization.allCases)
    func activationQuantization(_ scheme: ActivationQuantization) {
        let m = 5, k = 768
        var x = gaussians(m * k, seed: 11)
        for i in 0..<32 { x[32 + i] = 0 }                 // an all-zero 32-block
        for i in 0..<256 { x[512 + i] = 0 }               // an all-zero 256-group
        x[70] = 0x1p-130                                    // a subnormal
        x[k + 300] = 40                                     // an outlier that sets its 256-group's scale
        let refContext = ExecutionContext(path: .ref, maxRows: m, maxK: k), ref = refContext.matmulScratch
        x.withUnsafeBufferPointer { refContext.quantize($0.baseAddress!, m: m, k: k, as: scheme) }
        let g = scheme.groupSize
        for r in 0..<m {
            let q = ref.quantizedRow(r), meta = ref.blockMeta(r)
            for b in 0..<(k / 32) {
                let group = (b * 32 / g * g)..<(b * 32 / g * g + g)
                let amax = group.map { abs(x[r * k + $0]) }.max()!
                let d = amax / 127, inv: Float = amax == 0 ? 0 : 127 / amax
                let scale: Float
                switch scheme {
                case .q8_32: scale = d
                case .q8_0, .q8_1: scale = Float(Float16(d))
                case .q8_K: scale = inv == 0 ? 0 : 1 / inv
                }
                #expect(meta[2 * b] == scale, "\(scheme) row \(r) block \(b)")
                var s = 0, s0 = 0
                for i in 0..<32 {
                    let xi = x[r * k + b * 32 + i], qi = Int(q[b * 32 + i])
                    #expect(abs(qi) <= 127)
                    let expected = scheme == .q8_32 ? (d == 0 ? 0 : xi * (1 / d)) : xi * inv
                    #expect(qi == Int(expected.rounded(.toNearestOrEven)), "\(scheme) row \(r) element \(b * 32 + i)")
                    #expect(abs(Float(qi) * scale - xi) <= d * (0.5 + 127 / 2048) * 1.0001 + 1e-38)
                    s += qi
                    if i < 16 { s0 += qi }
                }
                #expect(ref.blockSums(r)[b] == Int16(s))
                #expect(ref.halfBlockSums(r)[2 * b] == Int16(s0) && ref.halfBlockSums(r)[2 * b + 1] == Int16(s - s0))
                let scaledSum = scheme == .q8_1 ? Float(Float16(d * Float(s))) : scale * Float(s)
                #expect(meta[2 * b + 1] == scaledSum)
            }
        }
        for path in simdPaths {
            let fastContext = ExecutionContext(threads: 2, path: path, maxRows: m, maxK: k), fast = fastContext.matmulScratch
            x.withUnsafeBufferPointer { fastContext.quantize($0.baseAddress!, m: m, k: k, as: scheme) }
            for r in 0..<m {
                #expect(fast.quantizedRow(r) == ref.quantizedRow(r), "\(scheme) \(path) row \(r)")
                #expect(fast.blockMeta(r) == ref.blockMeta(r), "\(scheme) \(path) row \(r)")
                #expect(fast.blockSums(r) == ref.blockSums(r), "\(scheme) \(path) row \(r)")
                #expect(fast.halfBlockSums(r) == ref.halfBlockSums(r), "\(scheme) \(path) row \(r)")
            }
        }
    }

    /// Each GGUF format takes llama.cpp's activation type; the MX formats ours; floats none.
    @Test func activationSchemePerFormat() {
        let expected: [WeightFormat: ActivationQuantization] = [.q4_0: .q8_0, .q5_0: .q8_0, .q8_0: .q8_0, .q4_1: .q8_1, .q5_1: .q8_1, .iq4_nl: .q8_0, .iq4_xs: .q8_K,
                                                                .q3_K: .q8_K, .q4_K: .q8_K, .q5_K: .q8_K, .q6_K: .q8_K, .mxint8: .q8_32, .mxfp4: .q8_32]
        for f in allFormats { #expect(f.activationQuantization == expected[f], "\(f)") }
    }

    /// The reference kernel against an fp64 product on the independently dequantized weights,
    /// within the bound from activation quantization (half a step per element times |w|) plus
    /// fp32 rounding (see naiveWithBound).
    @Test(arguments: allFormats)
    func referenceMatchesDequantizedProduct(_ format: WeightFormat) throws {
        let m = 3, n = 21, k = oddK(format)
        let w = try randomWeights(format, n: n, k: k, seed: 100 + UInt64(format.hashValue & 0xFFFF))
        let x = gaussians(m * k, seed: 5)
        let (expected, bound) = naiveWithBound(w.dequantized(), n: n, k: k, x, m: m, scheme: format.activationQuantization)
        let y = runMatmul(w, x, m: m, path: .ref)
        var worst = 0.0
        for i in 0..<(m * n) {
            #expect(abs(Double(y[i]) - expected[i]) <= bound[i], "\(format) output \(i): \(y[i]) vs \(expected[i]) ± \(bound[i])")
            worst = max(worst, abs(Double(y[i]) - expected[i]) / bound[i])
        }
        #expect(worst > 0 || !format.usesQuantizedActivations)
    }

    /// Every SIMD path against the reference on odd shapes (N not a multiple of 16, M across the
    /// decode / prefill tiles). Integer, MXFP8, F16 and BF16 formats must be bit-identical (same fp32
    /// operation sequence per output); F32 goes through sgemm and is held to 1e-5 relative to
    /// sum |w x|.
    @Test(arguments: allFormats)
    func simdPathsMatchReference(_ format: WeightFormat) throws {
        let n = 37, k = oddK(format)
        let w = try randomWeights(format, n: n, k: k, seed: 200)
        let wf = w.dequantized()
        // 23: one full and one partial 16-row AMX activation tile in one call; 45 and 64: a short
        // prompt's rows as one work unit.
        for m in [1, 2, 3, 7, 23, 45, 64, 513] {
            if format.blockSize == 256 && m == 513 { continue }   // keep the reference's runtime small
            let x = gaussians(m * k, seed: UInt64(m))
            let ref = runMatmul(w, x, m: m, path: .ref)
            for path in simdPaths {
                for threads in [1, 2] {
                    let y = runMatmul(w, x, m: m, path: path, threads: threads)
                    // MXFP8, F16 and BF16 run the SIMD kernels (the reference's fp32 sequence) at every m.
                    if format.usesQuantizedActivations || [.mxfp8_e4m3, .mxfp8_e5m2, .f16, .bf16].contains(format) {
                        let mismatches = (0..<(m * n)).filter { y[$0].bitPattern != ref[$0].bitPattern }
                        #expect(mismatches.isEmpty, "\(format) \(path) m=\(m) t=\(threads): \(mismatches.count) outputs differ, first \(mismatches.first.map { "\(y[$0]) vs \(ref[$0])" } ?? "")")
                    } else {
                        for r in 0..<m {
                            for c in 0..<n {
                                var mag: Float = 0
                                for i in 0..<k { mag += abs(wf[c * k + i] * x[r * k + i]) }
                                #expect(abs(y[r * n + c] - ref[r * n + c]) <= 1e-5 * mag + 1e-30, "\(format) \(path) m=\(m)")
                            }
                        }
                    }
                }
            }
        }
    }

    /// The float formats' decode walks 64-row bands: four bands, the last partial, bit-identical
    /// to the reference on one, two and three threads, for one activation row and for four (a
    /// batched decode step, split between the threads at bands as decode is), with 8 blocks a row
    /// (four block pairs) and 9 (an odd last block after them); on the AVX-512 paths both with the
    /// GFNI decode and with the one it replaces, on AVX2 both with its four-codes-a-dword decode
    /// and without. Its cases run one at a time: each turns the process-wide switches (other
    /// tests see the same bits either way).
    @Test(.serialized, arguments: [WeightFormat.mxfp8_e4m3, .mxfp8_e5m2, .f16, .bf16])
    func floatDecodeAcrossBands(_ format: WeightFormat) throws {
        let n = 200   // every matrix over CK_MIN_PARALLEL_BYTES, so the threads split it
        for k in [256, 288] {
            let w = try randomWeights(format, n: n, k: k, seed: 400)
            for m in [1, 4] {
                let x = gaussians(m * k, seed: 9)
                let ref = runMatmul(w, x, m: m, path: .ref)
                for gfni: Int32 in [1, 0] {
                    ck_float_avx512_use_gfni(gfni)
                    ck_float_avx512_use_gfni_emu(gfni)
                    ck_float_avx2_use_dwords(gfni)
                    defer { ck_float_avx512_use_gfni(1); ck_float_avx512_use_gfni_emu(1); ck_float_avx2_use_dwords(1) }
                    #expect(ck_float_avx512_use_gfni_emu(-1) == gfni && ck_float_avx2_use_dwords(-1) == gfni)
                    for path in simdPaths {
                        for threads in [1, 2, 3] {
                            let y = runMatmul(w, x, m: m, path: path, threads: threads)
                            let differ = (0..<(m * n)).filter { y[$0].bitPattern != ref[$0].bitPattern }
                            #expect(differ.count == 0, "\(format) \(path) k=\(k) m=\(m) gfni=\(gfni) t=\(threads): first output \(differ.first ?? -1)")
                        }
                    }
                }
            }
        }
    }

    /// MXFP8 blocks holding every finite code (subnormals included) under scales from 2^-20 to
    /// 2^20, bit-identical on every path at decode and prefill sizes; also with an activation
    /// at each bound of the E4M3 decode's forms (the largest that scales by 2^120, 256 that
    /// scales only by 2^8, 3e37 that scales by neither, so each weight is multiplied), of the
    /// E5M2 decodes that scale by 2^112 (AVX-512's GFNI, AVX2's four codes a dword: the
    /// largest that scales, 65536 that does not) and an infinite one; and a block with an E4M3 NaN code gives NaN exactly where the reference does,
    /// and E5M2's infinity and NaN codes what the reference gives.
    @Test(arguments: [WeightFormat.mxfp8_e4m3, .mxfp8_e5m2])
    func mxfp8EveryCodeIsExact(_ format: WeightFormat) throws {
        let n = 80, k = 160, blocksPerRow = k / 32   // two bands; two block pairs and an odd last block
        let finite: [UInt8] = (0...255).map(UInt8.init).filter {
            format == .mxfp8_e4m3 ? $0 & 0x7F != 0x7F : $0 & 0x7C != 0x7C
        }
        var rng = SplitMix64(seed: 77)
        var blocks: [UInt8] = []
        for _ in 0..<(n * blocksPerRow) {
            blocks.append(UInt8(127 - 20 + Int(rng.next() % 41)))
            for _ in 0..<32 { blocks.append(finite[Int(rng.next() % UInt64(finite.count))]) }
        }
        var withNaN = blocks
        if format == .mxfp8_e4m3 {
            withNaN[5 * blocksPerRow * 33 + 33 + 7] = 0x7F   // row 5, block 1
        } else {   // E5M2's infinities and NaN (the 2^112 decodes treat their blocks apart)
            withNaN[5 * blocksPerRow * 33 + 33 + 7] = 0x7C
            withNaN[9 * blocksPerRow * 33 + 1] = 0xFC
            withNaN[30 * blocksPerRow * 33 + 3 * 33 + 30] = 0x7E
            withNaN[70 * blocksPerRow * 33 + 4 * 33 + 2] = 0xFC   // the second band's odd last block
        }
        for (bytes, nanRow) in [(blocks, -1), (withNaN, format == .mxfp8_e4m3 ? 5 : -1)] {
            let w = try bytes.withUnsafeBytes { try WeightMatrix(blocks: $0, n: n, k: k, format: format) }
            for m in [1, 3, 40] {
                for outlier: Float? in [nil, 0x1.fffffep+7, 256, 0x1.fffffep+15, 65536, 3e37, .infinity] {
                    var x = gaussians(m * k, seed: UInt64(m))
                    if let outlier { x[k / 2] = outlier }
                    let ref = runMatmul(w, x, m: m, path: .ref)
                    for r in 0..<m { #expect(ref[r * n + max(nanRow, 0)].isNaN == (nanRow >= 0)) }
                    for path in simdPaths {
                        let y = runMatmul(w, x, m: m, path: path, threads: 2)
                        let differ = (0..<(m * n)).filter { !(y[$0].isNaN && ref[$0].isNaN) && y[$0].bitPattern != ref[$0].bitPattern }
                        #expect(differ.isEmpty, "\(format) \(path) m=\(m) outlier=\(String(describing: outlier)): \(differ.count) differ")
                    }
                }
            }
        }
    }

    /// MXFP4 rows whose blocks hold every E2M1 code (each twice) under every ue8m0 scale code:
    /// the subnormal scales of codes 0 and 1, the overflowing ones near 254 and the NaN code 255
    /// (row r's blocks take codes 4r..4r+3, but 255 and 7 trade places, so the NaN block's row is
    /// finite without it). The kernels keep the 4-bit codes, look them up in
    /// registers and form 2^(e - 128) from the scale code; every path must equal the reference,
    /// which decodes the file's blocks, bit for bit at decode and prefill sizes.
    @Test func mxfp4EveryCodeAndScale() throws {
        let n = 64, k = 128, blocksPerRow = k / 32
        var rng = SplitMix64(seed: 79)
        var blocks: [UInt8] = []
        for i in 0..<(n * blocksPerRow) {
            blocks.append(UInt8(i == 7 ? 255 : i == 255 ? 7 : i))   // the scale code: row r, block b -> 4r + b
            let shift = Int(rng.next() % 16)
            for j in 0..<16 { blocks.append(UInt8((j + shift) % 16 | ((j + shift + 7) % 16) << 4)) }
        }
        let w = try blocks.withUnsafeBytes { try WeightMatrix(blocks: $0, n: n, k: k, format: .mxfp4) }
        for m in [1, 3, 40] {
            let x = gaussians(m * k, seed: UInt64(m))
            let ref = runMatmul(w, x, m: m, path: .ref)
            #expect(ref[0] != 0 && ref[0].magnitude < 0x1p-100 && ref[1].isNaN)   // the extremes are exercised
            for path in simdPaths {
                let y = runMatmul(w, x, m: m, path: path, threads: 2)
                let differ = (0..<(m * n)).filter { !(y[$0].isNaN && ref[$0].isNaN) && y[$0].bitPattern != ref[$0].bitPattern }
                #expect(differ.isEmpty, "\(path) m=\(m): \(differ.count) differ, first \(differ.first.map { "\(y[$0]) vs \(ref[$0])" } ?? "")")
            }
        }
    }

    /// MXINT8 and MXFP8 rows under every ue8m0 scale code (row r's blocks take codes 4r..4r+3),
    /// with random elements (MXINT8: any int8, -128 included; MXFP8: any finite code): the
    /// kernels keep the scale codes and form 2^(e - 133) (MXINT8) or 2^(e - 127) (MXFP8) in
    /// registers, fp32 subnormals for the lowest codes; every path must equal the reference bit
    /// for bit at decode and prefill sizes.
    @Test(arguments: [WeightFormat.mxint8, .mxfp8_e4m3, .mxfp8_e5m2])
    func mxEveryScaleCode(_ format: WeightFormat) throws {
        let n = 64, k = 128, blocksPerRow = k / 32
        let elements: [UInt8] = (0...255).map(UInt8.init).filter {
            format == .mxfp8_e4m3 ? $0 & 0x7F != 0x7F : format == .mxfp8_e5m2 ? $0 & 0x7C != 0x7C : true
        }
        var rng = SplitMix64(seed: 81)
        var blocks: [UInt8] = []
        for i in 0..<(n * blocksPerRow) {
            // The scale code of row r, block b is 4r + b, but 255 (NaN) and 100 trade places, so
            // row 1 holds MXINT8's subnormal-to-normal step (codes 6 and 7) with no NaN, and row 25 the NaN.
            blocks.append(UInt8(i == 100 ? 255 : i == 255 ? 100 : i))
            for _ in 0..<32 { blocks.append(elements[Int(rng.next() % UInt64(elements.count))]) }
        }
        let w = try blocks.withUnsafeBytes { try WeightMatrix(blocks: $0, n: n, k: k, format: format) }
        for m in [1, 3, 40] {
            let x = gaussians(m * k, seed: UInt64(m))
            let ref = runMatmul(w, x, m: m, path: .ref)
            #expect(ref[0] != 0 && ref[0].magnitude < 0x1p-100 && ref[1].isFinite && ref[25].isNaN)   // the extremes are exercised
            for path in simdPaths {
                let y = runMatmul(w, x, m: m, path: path, threads: 2)
                let differ = (0..<(m * n)).filter { !(y[$0].isNaN && ref[$0].isNaN) && y[$0].bitPattern != ref[$0].bitPattern }
                #expect(differ.isEmpty, "\(format) \(path) m=\(m): \(differ.count) differ, first \(differ.first.map { "\(y[$0]) vs \(ref[$0])" } ?? "")")
            }
        }
    }

    /// accumulate: y += x·Wᵀ equals the overwrite result added to the old y, on every path, for
    /// one activation row (the decode kernels) and 19 (the prefill tiles, AMX's too).
    @Test(arguments: [WeightFormat.q4_1, .q6_K, .q8_0, .f32, .mxfp8_e4m3, .mxfp8_e5m2])
    func accumulateAddsToY(_ format: WeightFormat) throws {
        for m in [1, 19] { try accumulateAddsToY(format, m: m) }
    }

    func accumulateAddsToY(_ format: WeightFormat, m: Int) throws {
        let n = 19, k = oddK(format)
        let w = try randomWeights(format, n: n, k: k, seed: 300)
        let x = gaussians(m * k, seed: 301), start = gaussians(m * n, seed: 302)
        for path in [KernelPath.ref] + simdPaths {
            let plain = runMatmul(w, x, m: m, path: path)
            let acc = runMatmul(w, x, m: m, path: path, accumulateOnto: start)
            for i in 0..<(m * n) {
                if format.usesQuantizedActivations { #expect(acc[i] == start[i] + plain[i]) }
                else { #expect(abs(acc[i] - (start[i] + plain[i])) <= 1e-4 * (abs(start[i]) + abs(plain[i]) + 1)) }
            }
        }
    }

    /// The K-quants' canonical form, written again here from the GGUF block layouts: per 256
    /// super-block the integer sum S of code · (u − off) · q (and for Q4_K the min codes times the
    /// block sums, M), then acc = fma(Float(S) · d, da, acc) (and fma(Float(M) · −dmin, da, acc)).
    /// The reference kernel gives these bits on every output (the SIMD paths equal it, above).
    @Test(arguments: [WeightFormat.q4_K, .q5_K, .q6_K])
    func kQuantSuperBlockForm(_ format: WeightFormat) throws {
        let m = 3, n = 21, k = 768
        let raw = randomBlocks(format, n: n, k: k, seed: 300)
        let w = try raw.withUnsafeBytes { try WeightMatrix(blocks: $0, n: n, k: k, format: format) }
        let x = gaussians(m * k, seed: 301)
        let context = ExecutionContext(path: .ref, maxRows: m, maxK: k)
        x.withUnsafeBufferPointer { context.quantize($0.baseAddress!, m: m, k: k, as: .q8_K) }
        let y = runMatmul(w, x, m: m, path: .ref)
        let half = { (o: Int) in Float(Float16(bitPattern: UInt16(raw[o]) | UInt16(raw[o + 1]) << 8)) }
        for r in 0..<m {
            let q = context.matmulScratch.quantizedRow(r), meta = context.matmulScratch.blockMeta(r)
            for c in 0..<n {
                var acc: Float = 0
                for sb in 0..<(k / 256) {
                    let o = c * format.rowBytes(k: k) + sb * format.blockBytes
                    var s = 0, mins = 0
                    for e in 0..<256 {
                        let j = e / 32, l = e % 32, qe = Int(q[sb * 256 + e])
                        if format != .q6_K {   // d, dmin, 12 bytes of 6-bit scales and mins, (Q5_K: 32 of fifth bits,) 128 of nibbles
                            let sc = j < 4 ? Int(raw[o + 4 + j] & 63) : Int(raw[o + 8 + j] & 15) | Int(raw[o + j] >> 6) << 4
                            let mn = j < 4 ? Int(raw[o + 8 + j] & 63) : Int(raw[o + 8 + j] >> 4) | Int(raw[o + 4 + j] >> 6) << 4
                            let byte = raw[o + (format == .q5_K ? 48 : 16) + 32 * (j / 2) + l]
                            let fifth = format == .q5_K ? Int((raw[o + 16 + l] >> j) & 1) << 4 : 0
                            s += sc * (Int(j % 2 == 1 ? byte >> 4 : byte & 15) | fifth) * qe
                            mins += mn * qe
                        } else {               // ql[128], qh[64], int8 scales[16], d
                            let h = j / 4, t = j % 4
                            let ql = raw[o + 64 * h + (t % 2 == 1 ? 32 : 0) + l], qh = raw[o + 128 + 32 * h + l]
                            let u = Int(t < 2 ? ql & 15 : ql >> 4) | Int((qh >> (2 * t)) & 3) << 4
                            s += Int(Int8(bitPattern: raw[o + 192 + 8 * h + 2 * t + l / 16])) * (u - 32) * qe
                        }
                    }
                    let da = meta[2 * 8 * sb]
                    if format != .q6_K {
                        acc = acc.addingProduct(Float(s) * half(o), da)
                        acc = acc.addingProduct(Float(mins) * -half(o + 2), da)
                    } else {
                        acc = acc.addingProduct(Float(s) * half(o + 208), da)
                    }
                }
                #expect(y[r * n + c].bitPattern == acc.bitPattern, "\(format) row \(r) column \(c): \(y[r * n + c]) vs \(acc)")
            }
        }
    }

    /// The K-quants across L2 chunks: the AVX2 prefill expands Q6_K and Q3_K a chunk of 18
    /// halves (144 rows at k = 768) at a time with its weight terms, so 157 and 150 rows end in a
    /// second chunk (a whole and a half-filled last group); every path equals the reference.
    @Test(arguments: [WeightFormat.q3_K, .q4_K, .q5_K, .q6_K])
    func kQuantsAcrossChunks(_ format: WeightFormat) throws {
        let k = 768, m = 23
        let x = gaussians(m * k, seed: 501)
        for n in [150, 157] {
            let w = try randomWeights(format, n: n, k: k, seed: 500)
            let ref = runMatmul(w, x, m: m, path: .ref)
            for path in simdPaths {
                for threads in [1, 2] {
                    let y = runMatmul(w, x, m: m, path: path, threads: threads)
                    #expect(y.map(\.bitPattern) == ref.map(\.bitPattern), "\(format) n=\(n) \(path) t=\(threads)")
                }
            }
        }
    }

    /// The K-quants at the ends of their ranges, where the integer sums come closest to their
    /// bounds: every value at its smallest or largest (Q6_K u = 0 or 63, the signed prefill's
    /// w = -32 or 31 against activations + 128 = 255 or 1: two products per i16 pair of
    /// |2 * 255 * 32| = 16320, two pairs summed), every code at -128 or its extreme, activations
    /// all +-amax (q = +-127); every path equals the reference, decode and prefill.
    @Test(arguments: [WeightFormat.q3_K, .q6_K])
    func kQuantExtremes(_ format: WeightFormat) throws {
        let n = 32, k = 512
        for fill: UInt8 in [0x00, 0xFF] {
            var raw = [UInt8](repeating: fill, count: n * format.rowBytes(k: k))
            for b in 0..<(raw.count / format.blockBytes) {   // a sane d; the codes stay at the fill
                let o = b * format.blockBytes
                putHalf(&raw, o + (format == .q6_K ? 208 : 108), 0.01)
                if format == .q6_K { for i in 0..<16 { raw[o + 192 + i] = 0x80 } }   // every scale -128
            }
            let w = try raw.withUnsafeBytes { try WeightMatrix(blocks: $0, n: n, k: k, format: format) }
            for sign: Float in [1, -1] {
                for m in [1, 8, 23] {
                    let x = (0..<(m * k)).map { i in (i / k) % 2 == 0 ? sign : -sign }
                    let ref = runMatmul(w, x, m: m, path: .ref)
                    for path in simdPaths {
                        let y = runMatmul(w, x, m: m, path: path, threads: 2)
                        #expect(y.map(\.bitPattern) == ref.map(\.bitPattern), "\(format) fill \(fill) sign \(sign) m=\(m) \(path)")
                    }
                }
            }
        }
    }

    /// The decode prefetch distance goes in whole 64-byte lines within 0...65536 (the per-CPU
    /// default and `bench kernels --prefetch` set it this way), and decode keeps the reference's
    /// bits at any distance, zero and the largest included.
    @Test func decodePrefetchDistance() throws {
        let chosen = ck_decode_prefetch_bytes(-1)
        defer { _ = ck_decode_prefetch_bytes(chosen) }
        #expect(ck_decode_prefetch_bytes(3000) == 2944 && ck_decode_prefetch_bytes(-1) == 2944)
        #expect(ck_decode_prefetch_bytes(1 << 20) == 65536)
        for format in [WeightFormat.q4_K, .q8_0, .mxfp8_e4m3] {
            let k = 2048, n = 80
            let w = try randomWeights(format, n: n, k: k, seed: 400)
            let x = gaussians(k, seed: 401)
            let ref = runMatmul(w, x, m: 1, path: .ref)
            for distance: Int64 in [0, 64, 3072, 65536] {
                #expect(ck_decode_prefetch_bytes(distance) == distance)
                for path in simdPaths {
                    let y = runMatmul(w, x, m: 1, path: path, threads: 2)
                    #expect(y.map(\.bitPattern) == ref.map(\.bitPattern), "\(format) \(path) prefetch \(distance)")
                }
            }
        }
    }

    /// Ops.linear over weights reading one input quantizes once per scheme (Q4_1 → Q8_1, Q8_0 and
    /// Q5_0 → Q8_0, F32 → none, the K-quants → Q8_K) and equals separate calls.
    @Test func sharedQuantizedInput() throws {
        let ws = [try randomWeights(.q4_1, n: 40, k: 576, seed: 1), try randomWeights(.q8_0, n: 24, k: 576, seed: 2),
                  try randomWeights(.f32, n: 8, k: 576, seed: 4), try randomWeights(.q5_0, n: 16, k: 576, seed: 5)]
        // Q8_K: three matrices of one call, two of them signed-weight ones on the AVX2 prefill,
        // at a decode step's 4 rows and a prefill's 23.
        let kws = [try randomWeights(.q4_K, n: 48, k: 768, seed: 6), try randomWeights(.q6_K, n: 40, k: 768, seed: 7),
                   try randomWeights(.q3_K, n: 24, k: 768, seed: 8)]
        for (ws, m, k) in [(ws, 4, 576), (kws, 4, 768), (kws, 23, 768)] {
            let x = gaussians(m * k, seed: 3)
            let context = ExecutionContext(threads: 2, maxRows: 32, maxK: 1536)
            let input = Matrix(rows: 32, columns: k)
            for r in 0..<m { for c in 0..<k { input.row(r)[c] = x[r * k + c] } }
            let outs = ws.map { Matrix(rows: 32, columns: $0.n) }
            Ops.linear(input, rows: m, weights: ws, into: outs, context: context)
            for (w, y) in zip(ws, outs) {
                let got = (0..<(m * w.n)).map { y.row($0 / w.n)[$0 % w.n] }
                #expect(got == runMatmul(w, x, m: m, path: KernelPath.active), "\(w.format) m=\(m)")
            }
        }
    }

    /// Decode streams the repacked bytes, so for the fp16-scaled GGUF formats, MXFP4 (its 4-bit
    /// codes and ue8m0 scale codes) and MXFP8 (its codes and scale codes) the repacked layout is
    /// exactly as large as the original blocks (N a multiple of 64); E5M2 adds a flag byte per
    /// 16-row group and block (its infinity and NaN codes).
    @Test(arguments: [WeightFormat.q4_0, .q4_1, .q8_0, .mxfp4, .mxfp8_e4m3, .mxfp8_e5m2])
    func repackedStreamsTheOriginalBytes(_ format: WeightFormat) throws {
        let n = 64, k = 576
        let w = try randomWeights(format, n: n, k: k, seed: 1)
        #expect(w.repackedByteCount == w.byteCount + (format == .mxfp8_e5m2 ? n / 16 * (k / 32) : 0))
    }

    @Test func descriptorAndDispatch() throws {
        let d = MatmulDescriptor(m: 1, n: 576, k: 576, weightFormat: .mxfp4)
        #expect(d.scaleFormat == .ue8m0 && d.quantizedActivations)
        #expect(MatmulDescriptor(m: 1, n: 2, k: 32, weightFormat: .q4_K).scaleFormat == .fp16)
        #expect(MatmulDescriptor(m: 1, n: 2, k: 32, weightFormat: .mxfp8_e4m3).quantizedActivations == false)
        #expect(WeightFormat(.q4_K) == .q4_K && WeightFormat(.q5_1) == .q5_1 && WeightFormat(.q2_K) == nil)
        // Asking for more than the CPU has is lowered to the best supported path.
        #expect(ck_kernel_path_get().rawValue <= ck_best_kernel_path().rawValue)
        #expect(throws: EngineError.self) { try WeightMatrix(quantizing: [Float](repeating: 0, count: 64), n: 2, k: 32, as: .q4_K) }
    }
}
