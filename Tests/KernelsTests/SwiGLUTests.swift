import TestSupport
import CKernels
import Foundation
import Testing
@testable import Engine

/// SwiGLU, x = silu(g) * u with silu(g) = g / (1 + e^-g), on both paths against fp64, and the
/// AVX2 kernel against the reference bit for bit (one exp polynomial on every path).
/// Time cap: well under a second.
@Suite struct SwiGLUTests {
    static func run(_ f: (UnsafeMutablePointer<Float>, UnsafePointer<Float>, Int64) -> Void, _ gate: [Float], _ up: [Float]) -> [Float] {
        var y = gate
        y.withUnsafeMutableBufferPointer { yp in up.withUnsafeBufferPointer { f(yp.baseAddress!, $0.baseAddress!, Int64(yp.count)) } }
        return y
    }

    @Test func bothPathsAgreeWithFp64() {
        var gate: [Float] = [-1e30, -200, -100, -88, -87.5, -20, -1, -1e-7, 0, 1e-7, 0.5, 1, 3, 20, 88, 89, 200, 1e30]
        var rng = SplitMix64(seed: 11)
        for _ in 0..<4001 { gate.append(Float(rng.gaussian() * 6)) }   // odd count: the scalar tail runs too
        let up = gate.indices.map { _ in Float(rng.gaussian()) }
        for (name, path) in [("ref", ck_swiglu_ref), ("avx2", ck_swiglu_avx2)] as [(String, (UnsafeMutablePointer<Float>, UnsafePointer<Float>, Int64) -> Void)] {
            if name == "avx2" && ck_best_kernel_path() == CK_PATH_REF { continue }
            let y = Self.run(path, gate, up)
            for i in gate.indices {
                let g = Double(gate[i]), u = Double(up[i])
                let exact = g / (1 + exp(-g)) * u
                // A few fp32 ulps of the result, plus an absolute floor for results that underflow.
                #expect(abs(Double(y[i]) - exact) <= 4 * Double(Float(abs(exact)).ulp) + 1e-37,
                        "\(name): gate \(gate[i]) up \(up[i]): \(y[i]) vs \(exact)")
            }
        }
    }

    /// ck_swiglu_avx2 gives ck_swiglu_ref's bits: the clamps, the overflow to +inf, ±0, the
    /// scalar tail (an odd count) and a dense sweep of the range where e^-g is neither 0 nor
    /// huge, where any change to the polynomial, the rounding of n or the order of one operation
    /// shows.
    @Test(.enabled(if: KernelPath.avx2.isSupported)) func avx2IsTheReferenceBitForBit() {
        var gate: [Float] = [-.infinity, -1e30, -200, -88.5, -88, -87.99, -87, -86.9, -0.0, 0, 1e-30, 86.9, 87, 87.5, 88, 89,
                             .infinity, .leastNonzeroMagnitude, -.leastNonzeroMagnitude]
        var g: Float = -90
        while g < 90 { gate.append(g); g += 0.0037 }
        var rng = SplitMix64(seed: 12)
        for _ in 0..<20001 { gate.append(Float(rng.gaussian() * 8)) }
        let up = gate.indices.map { _ in Float(rng.gaussian()) }
        let ref = Self.run(ck_swiglu_ref, gate, up), avx2 = Self.run(ck_swiglu_avx2, gate, up)
        let differing = gate.indices.filter { ref[$0].bitPattern != avx2[$0].bitPattern }
        #expect(differing.isEmpty, "\(differing.count) of \(gate.count) differ, first gate \(differing.first.map { "\(gate[$0])" } ?? "")")
    }
}
