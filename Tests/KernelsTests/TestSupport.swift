import TestSupport
import CKernels
#if canImport(Glibc)
import Glibc
#endif
@testable import Engine

/// Floats and bytes from the shared seeded generator, so every test input is reproducible.
extension SplitMix64 {
    /// Uniform in [0, 1).
    mutating func uniform() -> Float { Float(next() >> 40) * 0x1p-24 }
    /// Standard normal (Box–Muller).
    mutating func gaussian() -> Float {
        let u1 = max(uniform(), 1e-7), u2 = uniform()
        return (-2 * logf(u1)).squareRoot() * cosf(2 * Float.pi * u2)
    }
    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
}

func gaussians(_ count: Int, seed: UInt64, scale: Float = 1) -> [Float] {
    var rng = SplitMix64(seed: seed)
    return (0..<count).map { _ in rng.gaussian() * scale }
}

func putHalf(_ bytes: inout [UInt8], _ offset: Int, _ value: Float) {
    let h = ck_fp32_to_fp16(value)
    bytes[offset] = UInt8(h & 0xFF)
    bytes[offset + 1] = UInt8(h >> 8)
}

/// Random but well-formed blocks of a GGUF format: random quant bytes, scales in a sane range.
func randomBlocks(_ format: WeightFormat, n: Int, k: Int, seed: UInt64) -> [UInt8] {
    var rng = SplitMix64(seed: seed)
    var bytes = (0..<(n * format.rowBytes(k: k))).map { _ in rng.byte() }
    let bb = format.blockBytes
    for b in 0..<(bytes.count / bb) {
        let o = b * bb
        let d = 0.002 + 0.01 * rng.uniform()
        switch format {
        case .q4_0, .q5_0, .q8_0, .iq4_nl: putHalf(&bytes, o, d)
        case .iq4_xs: putHalf(&bytes, o, d / 16)
        case .q4_1: putHalf(&bytes, o, d); putHalf(&bytes, o + 2, -8 * d * rng.uniform())
        case .q5_1: putHalf(&bytes, o, d); putHalf(&bytes, o + 2, -16 * d * rng.uniform())
        case .q4_K, .q5_K: putHalf(&bytes, o, d / 16); putHalf(&bytes, o + 2, d / 32)
        case .q6_K: putHalf(&bytes, o + 208, d / 64)
        case .q3_K: putHalf(&bytes, o + 108, d / 64)
        case .f16:
            for i in stride(from: o, to: o + bb, by: 2) { putHalf(&bytes, i, rng.gaussian()) }
        default: break
        }
    }
    return bytes
}

/// A weight matrix of `format` with random contents: random blocks for GGUF quant types,
/// quantized Gaussians for MX / F32 / F16.
func randomWeights(_ format: WeightFormat, n: Int, k: Int, seed: UInt64) throws -> WeightMatrix {
    switch format {
    case .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q3_K, .q4_K, .q5_K, .q6_K, .iq4_nl, .iq4_xs:
        let blocks = randomBlocks(format, n: n, k: k, seed: seed)
        return try blocks.withUnsafeBytes { try WeightMatrix(blocks: $0, n: n, k: k, format: format) }
    default:
        return try WeightMatrix(quantizing: gaussians(n * k, seed: seed, scale: 0.05), n: n, k: k, as: format)
    }
}

/// Runs a matmul on fresh scratch and returns y[m][n].
func runMatmul(_ w: WeightMatrix, _ x: [Float], m: Int, path: KernelPath, threads: Int = 1,
               accumulateOnto start: [Float]? = nil) -> [Float] {
    let context = ExecutionContext(threads: threads, path: path, maxRows: m, maxK: w.k)
    var y = start ?? [Float](repeating: .nan, count: m * w.n)
    x.withUnsafeBufferPointer { xp in
        y.withUnsafeMutableBufferPointer { yp in
            matmul(w, x: xp.baseAddress!, m: m, y: yp.baseAddress!, context: context, accumulate: start != nil)
        }
    }
    return y
}

/// fp64 x · Wᵀ on the dequantized weights, and a per-output error bound for a kernel that
/// quantizes activations with `scheme` (nil: fp32) and accumulates in fp32: per element half an
/// activation step (amax/254 over the scheme's group), plus the fp16 rounding of Q8_0/Q8_1's scale
/// (|q| <= 127 times 2^-11 of it), plus for Q8_1 the fp16 rounding of scale·sum times the block
/// minimum (bounded by max |w| + 15 · the block's range of w).
func naiveWithBound(_ wf: [Float], n: Int, k: Int, _ x: [Float], m: Int, scheme: ActivationQuantization?)
    -> (y: [Double], bound: [Double]) {
    var y = [Double](repeating: 0, count: m * n), bound = [Double](repeating: 0, count: m * n)
    var half = [Double](repeating: 0, count: m * k)   // per element: half an activation quantum (+ scale rounding)
    var step = [Double](repeating: 0, count: m * k / 32)
    if let scheme {
        let g = scheme.groupSize, scaleRounding = scheme == .q8_0 || scheme == .q8_1 ? 127.0 / 2048 : 0
        for r in 0..<m {
            for b in 0..<(k / g) {
                let amax = (0..<g).map { abs(Double(x[r * k + b * g + $0])) }.max()!
                for i in 0..<g { half[r * k + b * g + i] = amax / 127 * (0.5 + scaleRounding) * 1.0001 }
                for j in 0..<(g / 32) { step[r * k / 32 + b * g / 32 + j] = amax / 127 }
            }
        }
    }
    let sumRounding = scheme == .q8_1
    for r in 0..<m {
        for c in 0..<n {
            var s = 0.0, e = 0.0, mag = 0.0
            for b in 0..<(k / 32) {
                var wmax = 0.0, xs = 0.0, wlo = Double.infinity, whi = -Double.infinity
                for i in (b * 32)..<(b * 32 + 32) {
                    let wv = Double(wf[c * k + i]), xv = Double(x[r * k + i])
                    s += wv * xv
                    e += abs(wv) * half[r * k + i]
                    wmax = max(wmax, abs(wv))
                    wlo = min(wlo, wv); whi = max(whi, wv)
                    xs += abs(xv)
                }
                mag += wmax * xs
                if sumRounding { e += (wmax + 15 * (whi - wlo)) * (xs + 16 * step[r * k / 32 + b]) * 0x1p-10 * 1.01 }
            }
            y[r * n + c] = s
            // fp32 rounding of the canonical sequence: a few ulps of each block term (the offset
            // terms are up to 128x the block's max |w| times its sum |x|).
            bound[r * n + c] = e + (scheme != nil ? 2.6e-4 : 1e-5) * mag + 1e-30
        }
    }
    return (y, bound)
}

/// A KV cache of `capacity` rows in `format` whose first rows hold `kx` / `vx` (`[row][kvDim]`,
/// stored by ck_kv_store_row), and what those rows decode to (ck_kv_load_row).
func storedCache(_ format: ck_kv_format, k kx: [Float], v vx: [Float], kvDim: Int, capacity: Int)
    -> (k: [UInt8], v: [UInt8], kf: [Float], vf: [Float]) {
    let rowBytes = Int(ck_kv_row_bytes(format, Int64(kvDim))), filled = kx.count / kvDim
    var k = [UInt8](repeating: 0, count: capacity * rowBytes), v = k
    var kf = [Float](repeating: 0, count: filled * kvDim), vf = kf
    for p in 0..<filled {
        kx.withUnsafeBufferPointer { x in k.withUnsafeMutableBytes { ck_kv_store_row(format, x.baseAddress! + p * kvDim, $0.baseAddress! + p * rowBytes, Int64(kvDim)) } }
        vx.withUnsafeBufferPointer { x in v.withUnsafeMutableBytes { ck_kv_store_row(format, x.baseAddress! + p * kvDim, $0.baseAddress! + p * rowBytes, Int64(kvDim)) } }
        k.withUnsafeBytes { src in kf.withUnsafeMutableBufferPointer { ck_kv_load_row(format, src.baseAddress! + p * rowBytes, $0.baseAddress! + p * kvDim, Int64(kvDim)) } }
        v.withUnsafeBytes { src in vf.withUnsafeMutableBufferPointer { ck_kv_load_row(format, src.baseAddress! + p * rowBytes, $0.baseAddress! + p * kvDim, Int64(kvDim)) } }
    }
    return (k, v, kf, vf)
}

/// Largest error allowed for ck_attention against referenceAttention over the decoded cache.
/// A decode row over a q8_0 cache goes through split-K's int16 path (attention_split_q8_0.h): it
/// rounds the query to 15 bits of its largest element and each 64-row block's weights to 15 bits
/// of their bound, about 1e-4 on these fixtures (SplitKAttentionTests compares that with the
/// cache's own rounding). The blocked prefill's integer phases (the AVX-512 paths) round the query
/// and each chunk's weights the same way. A score's error is a sum of head-dim many rounding errors, so it grows as the
/// square root of the head dim: up to 5.4e-4 on a head dim 256 fixture (in decode the same
/// rounding measures 1/150 to 1/350 of the cache's own). Every other kernel computes in fp32 from
/// the decoded rows.
func attentionTolerance(format: ck_kv_format, int16Query: Bool, headDim: Int) -> Double {
    int16Query && format == CK_KV_Q8_0 ? 4e-4 * max(1, (Double(headDim) / 64).squareRoot()) : 2e-5
}

/// Naive fp64 softmax attention of one query row (`heads × headDim` values of `q` from
/// `qOffset`) over cache rows `first...last` of decoded `k` / `v` (`[position][kvHeads × headDim]`),
/// query head h reading KV head h / (heads / kvHeads). Returns `heads × headDim` outputs.
func referenceAttention(q: [Float], qOffset: Int = 0, k: [Float], v: [Float], heads: Int, kvHeads: Int, headDim: Int,
                        first: Int, last: Int) -> [Double] {
    let kvDim = kvHeads * headDim
    var out = [Double](repeating: 0, count: heads * headDim)
    for h in 0..<heads {
        let g = h / (heads / kvHeads)
        var scores = [Double]()
        for p in first...last {
            var s = 0.0
            for d in 0..<headDim { s += Double(q[qOffset + h * headDim + d]) * Double(k[p * kvDim + g * headDim + d]) }
            scores.append(s)
        }
        let mx = scores.max()!
        let w = scores.map { exp($0 - mx) }
        let sum = w.reduce(0, +)
        for d in 0..<headDim {
            var acc = 0.0
            for (i, p) in (first...last).enumerated() { acc += w[i] * Double(v[p * kvDim + g * headDim + d]) }
            out[h * headDim + d] = acc / sum
        }
    }
    return out
}
