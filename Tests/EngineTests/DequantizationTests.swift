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
