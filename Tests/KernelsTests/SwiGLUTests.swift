import CKernels
import Foundation
import Testing

/// SwiGLU, x = silu(g) * u with silu(g) = g / (1 + e^-g), on both paths against fp64.
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
}
