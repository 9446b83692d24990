import CKernels
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Engine
import TestSupport

/// OCP MX v1.0 element and block codecs against the spec's facts.
@Suite struct MXFormatTests {
    /// Independent decoder written from the spec's field definitions (sign, exponent, mantissa).
    func specValue(_ code: UInt8, ebits: Int, mbits: Int, bias: Int) -> Double {
        let sign = (Int(code) >> (ebits + mbits)) & 1 == 1 ? -1.0 : 1.0
        let e = (Int(code) >> mbits) & ((1 << ebits) - 1), m = Int(code) & ((1 << mbits) - 1)
        let frac = Double(m) / Double(1 << mbits)
        return sign * (e == 0 ? frac * pow(2.0, Double(1 - bias)) : (1 + frac) * pow(2.0, Double(e - bias)))
    }

    @Test func e4m3DecodesEveryCodeAndNaN() {
        for c in 0...255 {
            let v = ck_mx_elem_decode(CK_MX_E4M3, UInt8(c))
            if c & 0x7F == 0x7F { #expect(v.isNaN, "code \(c)"); continue }
            #expect(Double(v) == specValue(UInt8(c), ebits: 4, mbits: 3, bias: 7), "code \(c)")
        }
        #expect(ck_mx_elem_decode(CK_MX_E4M3, 0x7E) == 448)
        #expect(ck_mx_elem_decode(CK_MX_E4M3, 0x01) == 0x1p-9)     // smallest subnormal
        #expect(ck_mx_elem_decode(CK_MX_E4M3, 0x07) == 7 * 0x1p-9)  // largest subnormal
    }

    @Test func e5m2DecodesInfinitiesAndNaNs() {
        #expect(ck_mx_elem_decode(CK_MX_E5M2, 0x7C) == .infinity)
        #expect(ck_mx_elem_decode(CK_MX_E5M2, 0xFC) == -.infinity)
        for c: UInt8 in [0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF] { #expect(ck_mx_elem_decode(CK_MX_E5M2, c).isNaN) }
        #expect(ck_mx_elem_decode(CK_MX_E5M2, 0x7B) == 57344)
        #expect(ck_mx_elem_decode(CK_MX_E5M2, 0x01) == 0x1p-16)
        for c in 0...255 where (c >> 2) & 31 != 31 {
            #expect(Double(ck_mx_elem_decode(CK_MX_E5M2, UInt8(c))) == specValue(UInt8(c), ebits: 5, mbits: 2, bias: 15))
        }
    }

    @Test func e2m1ValueTable() {
        let expected: [Float] = [0, 0.5, 1, 1.5, 2, 3, 4, 6]
        for c in 0..<8 {
            #expect(ck_mx_elem_decode(CK_MX_E2M1, UInt8(c)) == expected[c])
            #expect(ck_mx_elem_decode(CK_MX_E2M1, UInt8(c | 8)) == -expected[c])
        }
    }

    @Test func encodeRoundTripsEveryFiniteCode() {
        for (kind, count) in [(CK_MX_E4M3, 256), (CK_MX_E5M2, 256), (CK_MX_E2M1, 16), (CK_MX_INT8, 256)] {
            for c in 0..<count {
                let v = ck_mx_elem_decode(kind, UInt8(c))
                if !v.isFinite || (kind == CK_MX_INT8 && c == 0x80) { continue }   // -128 is outside the symmetric range
                let back = ck_mx_elem_encode(kind, v)
                if v == 0 { #expect(ck_mx_elem_decode(kind, back) == 0); continue }
                #expect(back == UInt8(c), "kind \(kind) code \(c)")
            }
        }
    }

    /// The element encoder against a naive one: the nearest of the kind's finite magnitudes (in
    /// fp64), a tie to the code with the even last bit, above the largest one that one, then
    /// the sign. Inputs: every midpoint between neighbouring magnitudes and one fp32 step either
    /// side of it, random magnitudes from far below the smallest to far above the largest, and
    /// each negated (random fp32 bit patterns at that scale).
    @Test(arguments: [CK_MX_E4M3, CK_MX_E5M2, CK_MX_E2M1, CK_MX_INT8])
    func encodeIsTheNearestCode(_ kind: ck_mx_elem) {
        let codes = kind == CK_MX_E2M1 ? 8 : 128
        let table = (0..<codes).map { (value: Double(ck_mx_elem_decode(kind, UInt8($0))), code: $0) }
            .filter { $0.value.isFinite }.sorted { $0.value < $1.value }
        func naive(_ v: Float) -> UInt8 {
            let a = abs(Double(v))
            var best = table[0]
            for t in table.dropFirst() {
                let d = abs(t.value - a), bd = abs(best.value - a)
                if d < bd || (d == bd && t.code % 2 == 0) { best = t }
            }
            if kind == CK_MX_INT8 { return UInt8(bitPattern: Int8(v.sign == .minus ? -best.code : best.code)) }
            return UInt8(best.code) | (v.sign == .minus ? (kind == CK_MX_E2M1 ? 8 : 0x80) : 0)
        }
        var inputs: [Float] = []
        for (lo, hi) in zip(table, table.dropFirst()) {
            let mid = Float((lo.value + hi.value) / 2)   // exact: neighbours are a few bits apart
            inputs += [mid, mid.nextUp, mid.nextDown]
        }
        var rng = SplitMix64(seed: 5)
        let top = Float(table.last!.value)
        for _ in 0..<20_000 {
            inputs.append(Float.random(in: 0...1, using: &rng) * top * 4)
            inputs.append(Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()) & 0x7FFF_FFFF) * 0x1p-100)
        }
        inputs = inputs.filter(\.isFinite)
        for v in inputs + inputs.map({ -$0 }) {
            let got = ck_mx_elem_encode(kind, v), want = naive(v)
            if got != want {
                Issue.record("kind \(kind) v \(v): \(got) != \(want)")
                return
            }
        }
    }

    @Test func roundToNearestEvenAndSaturation() {
        #expect(ck_mx_elem_decode(CK_MX_E2M1, ck_mx_elem_encode(CK_MX_E2M1, 2.5)) == 2)   // tie -> even mantissa
        #expect(ck_mx_elem_decode(CK_MX_E2M1, ck_mx_elem_encode(CK_MX_E2M1, 3.5)) == 4)
        #expect(ck_mx_elem_decode(CK_MX_E2M1, ck_mx_elem_encode(CK_MX_E2M1, 0.25)) == 0)
        #expect(ck_mx_elem_decode(CK_MX_E4M3, ck_mx_elem_encode(CK_MX_E4M3, 17)) == 16)
        #expect(ck_mx_elem_decode(CK_MX_E4M3, ck_mx_elem_encode(CK_MX_E4M3, 19)) == 20)
        #expect(ck_mx_elem_decode(CK_MX_E4M3, ck_mx_elem_encode(CK_MX_E4M3, 1e6)) == 448)
        #expect(ck_mx_elem_decode(CK_MX_E4M3, ck_mx_elem_encode(CK_MX_E4M3, 464)) == 448)  // would round to 480 = NaN code
        #expect(ck_mx_elem_decode(CK_MX_E5M2, ck_mx_elem_encode(CK_MX_E5M2, -1e9)) == -57344)
        #expect(ck_mx_elem_decode(CK_MX_E2M1, ck_mx_elem_encode(CK_MX_E2M1, 100)) == 6)
        #expect(ck_mx_elem_decode(CK_MX_INT8, ck_mx_elem_encode(CK_MX_INT8, -5)) == -127.0 / 64)
        #expect(ck_mx_elem_decode(CK_MX_E4M3, ck_mx_elem_encode(CK_MX_E4M3, 0x1p-10)) == 0)      // tie -> 0
        #expect(ck_mx_elem_decode(CK_MX_E4M3, ck_mx_elem_encode(CK_MX_E4M3, 0x1.8p-9)) == 0x1p-8) // tie -> even (2 quanta)
    }

    func blocks(_ format: WeightFormat, _ values: [Float]) throws -> WeightMatrix {
        try WeightMatrix(quantizing: values, n: 1, k: values.count, as: format)
    }

    @Test(arguments: [WeightFormat.mxint8, .mxfp8_e4m3, .mxfp8_e5m2, .mxfp4])
    func nanScaleAndZeroBlocks(_ format: WeightFormat) throws {
        var values = [Float](repeating: 0, count: 96)
        for i in 32..<64 { values[i] = Float(i) }
        values[40] = .nan
        for i in 64..<96 { values[i] = 1 }
        values[70] = .infinity
        let w = try blocks(format, values)
        let raw = w.weights.raw!.assumingMemoryBound(to: UInt8.self)
        let stride = format.blockBytes
        #expect(raw[stride] == 0xFF && raw[2 * stride] == 0xFF, "NaN/inf input -> NaN scale")
        let d = w.dequantized()
        #expect(d[0..<32].allSatisfy { $0 == 0 }, "all-zero block decodes to zeros")
        #expect(d[32..<96].allSatisfy { $0.isNaN }, "a NaN scale makes the whole block NaN")
        // The matmul propagates the NaN block too, on every path.
        for path in KernelPath.allCases {
            let y = runMatmul(w, [Float](repeating: 1, count: 96), m: 1, path: path)
            #expect(y[0].isNaN)
        }
    }

    @Test func sharedExponentAndSaturationAtTheBlockMax() throws {
        // amax = 480: floor(log2 480) = 8, E4M3 emax 8 -> X = 2^0 and 480 saturates to 448.
        var values = [Float](repeating: 1, count: 32)
        values[3] = 480
        let w = try blocks(.mxfp8_e4m3, values)
        #expect(w.weights.raw!.load(as: UInt8.self) == 127)
        let d = w.dequantized()
        #expect(d[3] == 448 && d[0] == 1)
        // E2M1: amax 6.5 -> E = 2 - 2 = 0, 6.5 -> 6; 0.3 -> 0.5 (nearest), 0.2 -> 0.
        var v4 = [Float](repeating: 0.2, count: 32)
        v4[0] = 6.5; v4[1] = 0.3; v4[2] = -0.75
        let d4 = try blocks(.mxfp4, v4).dequantized()
        #expect(d4[0] == 6 && d4[1] == 0.5 && d4[3] == 0 && d4[2] == -1)   // -0.75: tie between 0.5 and 1 -> 1 (even)
        // MXINT8: amax 1 -> E = 0, 2^-6 steps.
        var v8 = [Float](repeating: 0, count: 32)
        v8[0] = 1; v8[1] = 0.5 + 0x1p-7   // 32.5 steps -> 32 (even)
        let d8 = try blocks(.mxint8, v8).dequantized()
        #expect(d8[0] == 1 && d8[1] == 0.5)
        // Subnormal FP8 codes survive: a block whose small elements sit below E4M3's normal range.
        var vs = [Float](repeating: 0, count: 32)
        vs[0] = 256; vs[1] = 0x1p-1   // X = 1 (256 -> E = 0); 0.5 = 2^-1 normal; try 2^-8:
        vs[2] = 0x1p-8; vs[3] = 3 * 0x1p-9
        let ds = try blocks(.mxfp8_e4m3, vs).dequantized()
        #expect(ds[2] == 0x1p-8 && ds[3] == 3 * 0x1p-9)
    }

    /// Relative RMS error of quantize -> dequantize on N(0, 1) data, against the format's
    /// mantissa width (bounds are ~1.5x the measured values on this seed).
    @Test(arguments: [(WeightFormat.mxint8, 0.012), (.mxfp8_e4m3, 0.035), (.mxfp8_e5m2, 0.07), (.mxfp4, 0.16)])
    func roundTripErrorOnGaussians(_ format: WeightFormat, _ bound: Double) throws {
        let x = gaussians(32 * 1024, seed: 7)
        let d = try blocks(format, x).dequantized()
        var num = 0.0, den = 0.0
        for i in 0..<x.count { num += Double(d[i] - x[i]) * Double(d[i] - x[i]); den += Double(x[i]) * Double(x[i]) }
        let rel = (num / den).squareRoot()
        #expect(rel < bound, "\(format) relative RMS \(rel)")
        #expect(rel > bound / 4, "\(format) relative RMS \(rel) suspiciously small")
    }
}
