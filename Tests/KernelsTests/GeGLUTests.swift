import TestSupport
import CKernels
import Foundation
import Testing

/// GEGLU with llama.cpp's fp16 GELU lookup: gelu(g) = 0 for g <= -10, g for g >= 10, otherwise
/// gelu_tanh(fp16(g)) rounded to fp16; the result is that times `up`. Checked against gelu_tanh
/// in fp64 on the fp16-rounded input.
@Suite struct GeGLUTests {
    static func geluTanh(_ x: Double) -> Double { 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))) }

    @Test func tableSemantics() {
        var gate: [Float] = [-1e30, -10, -9.999, -3, -0.5, -1e-6, 0, 1e-6, 0x1p-20, 0.1, 0.7, 1, 2.5, 9.99, 10, 12, 1e30]
        var rng = SplitMix64(seed: 7)
        for _ in 0..<2000 { gate.append(Float(rng.gaussian() * 3)) }
        let up = gate.indices.map { Float(1 << ($0 % 3)) * 0.5 }   // powers of two: y / up is exact
        var y = gate
        y.withUnsafeMutableBufferPointer { yp in up.withUnsafeBufferPointer { ck_geglu(yp.baseAddress!, $0.baseAddress!, Int64(yp.count)) } }
        for (i, g) in gate.enumerated() {
            let expected: Float
            if g <= -10 { expected = 0 }
            else if g >= 10 { expected = g * up[i] }
            else {
                let exact = Self.geluTanh(Double(Float(Float16(g))))
                // gelu_tanh evaluated in fp32 (1 + tanh cancels for negative g: an absolute error of a
                // few fp32 ulps of 1 times |g|/2), then rounded to fp16 (an ulp of slack).
                let got = Double(y[i] / up[i])
                let ulp = Double(Float16(exact).ulp)
                #expect(abs(got - exact) <= ulp + abs(Double(g)) * 0x1p-22 + 1e-12, "gate \(g): \(got) vs \(exact)")
                #expect(Float(Float16(y[i] / up[i])) == y[i] / up[i], "gate \(g): not an fp16 value")
                continue
            }
            #expect(y[i] == expected, "gate \(g)")
        }
    }
}
