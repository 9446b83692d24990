import Foundation
import Testing
import CKernels
@testable import Engine
import GGUF

/// One fixture case written by Fixtures/make_fixtures.py with the `gguf` package's numpy
/// dequantizers (an implementation independent of ours).
struct DequantCase: Decodable, CustomStringConvertible {
    let name: String
    let type: UInt32
    let row_length: Int
    let rows: Int
    let source: String
    var description: String { name }

    static func all() throws -> [DequantCase] {
        let url = Bundle.module.url(forResource: "dequant", withExtension: "json", subdirectory: "Fixtures")!
        return try JSONDecoder().decode([DequantCase].self, from: Data(contentsOf: url))
    }

    func load(_ ext: String) throws -> Data {
        try Data(contentsOf: Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Fixtures")!)
    }
}

@Suite struct DequantizationTests {
    @Test(arguments: try DequantCase.all())
    func bitExactAgainstGGUFPackage(_ c: DequantCase) throws {
        let raw = try c.load("q"), expected = try c.load("f32")
        let n = c.rows * c.row_length
        #expect(expected.count == n * 4)
        var out = [Float](repeating: .nan, count: n)
        let status = raw.withUnsafeBytes { src in
            out.withUnsafeMutableBufferPointer { ck_dequantize_row(ck_type(c.type), src.baseAddress!, $0.baseAddress!, Int64(n)) }
        }
        #expect(status == 0)
        let want = expected.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)).map { UInt32(littleEndian: $0) } }
        let mismatches = zip(out.map(\.bitPattern), want).enumerated().filter { $0.element.0 != $0.element.1 }
        #expect(mismatches.count == 0, "\(c.name): \(mismatches.count) of \(n) elements differ, first at \(mismatches.first?.offset ?? -1)")
    }

    @Test func rejectsPartialBlocksAndUnknownTypes() {
        var out = [Float](repeating: 0, count: 64)
        let zeros = [UInt8](repeating: 0, count: 64)
        #expect(ck_dequantize_row(CK_TYPE_Q4_0, zeros, &out, 31) == -1)
        #expect(ck_dequantize_row(ck_type(10), zeros, &out, 256) == -1)   // Q2_K: not decoded
    }

    @Test func fp16ConversionRoundTripsEveryFiniteValue() {
        for bits in UInt16.min...UInt16.max where (bits & 0x7C00) != 0x7C00 {
            let f = ck_fp16_to_fp32(bits)
            #expect(f == Float(Float16(bitPattern: bits)))
            #expect(ck_fp32_to_fp16(f) == bits || (f == 0 && (bits & 0x7FFF) == 0))
        }
        #expect(ck_fp32_to_fp16(65520) == 0x7C00)            // rounds to infinity
        #expect(ck_fp32_to_fp16(65519) == 0x7BFF)
        #expect(ck_fp32_to_fp16(Float.nan) & 0x7C00 == 0x7C00)
        #expect(ck_fp32_to_fp16(0x1p-25) == 0)               // tie to even: 0
        #expect(ck_fp32_to_fp16(0x1.8p-24) == 2)             // 1.5 ulp of subnormal: tie to even 2
    }

    /// bfloat16 is the top half of an fp32: every bfloat16 round-trips; fp32 values between two
    /// bfloat16s round to the nearer one, ties to the even one; overflow gives infinity and a NaN
    /// stays a NaN (the 0x7F80_0001 payload would truncate to infinity).
    @Test func bf16ConversionRoundsToNearestEven() {
        for bits in UInt16.min...UInt16.max where (bits & 0x7F80) != 0x7F80 {
            let f = ck_bf16_to_fp32(bits)
            #expect(f.bitPattern == UInt32(bits) << 16)
            #expect(ck_fp32_to_bf16(f) == bits)
        }
        let cases: [(UInt32, UInt16)] = [
            (0x3F80_8000, 0x3F80), (0x3F81_8000, 0x3F82),   // ties: to the even neighbour
            (0x3F80_8001, 0x3F81), (0x3F80_7FFF, 0x3F80),   // just above / below the tie
            (0xBF80_C000, 0xBF81), (0x7F7F_FFFF, 0x7F80),   // negative; the largest float rounds to infinity
            (0x0000_8000, 0x0000), (0x0001_8000, 0x0002),   // subnormal ties
        ]
        for (input, expected) in cases { #expect(ck_fp32_to_bf16(Float(bitPattern: input)) == expected, "\(input)") }
        let nan = ck_fp32_to_bf16(Float(bitPattern: 0x7F80_0001))
        #expect(Float(bitPattern: UInt32(nan) << 16).isNaN)
    }
}

/// The KV cache's fast MXFP8 E4M3 row decoder against the generic MX dequantizer, on rows that
/// cover every finite code (and the NaN code) with several scales.
@Suite struct KVRowFormatTests {
    @Test func fastE4M3DecodeEqualsTheReferenceDequantizer() {
        var blocks = [UInt8]()
        for b in 0..<8 {
            blocks.append(UInt8(120 + b * 2))                       // scale 2^(e-127)
            for i in 0..<32 { blocks.append(UInt8((b * 32 + i) & 0xFF)) }
        }
        let n = 8 * 32
        var fast = [Float](repeating: 0, count: n), reference = fast
        blocks.withUnsafeBytes { raw in
            ck_kv_load_row(CK_KV_MXFP8_E4M3, raw.baseAddress!, &fast, Int64(n))
            ck_dequantize_row_mxfp8_e4m3(raw.baseAddress!.assumingMemoryBound(to: ck_block_mxfp8.self), &reference, Int64(n))
        }
        for i in 0..<n {
            #expect(fast[i].bitPattern == reference[i].bitPattern || (fast[i].isNaN && reference[i].isNaN), "element \(i)")
        }
    }
}
