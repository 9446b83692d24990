import TestSupport
import Testing
@testable import GGUF

/// A small but complete file: every metadata value type, a nested array, three tensors. The last
/// tensor's size is a multiple of the alignment, so the file has no trailing padding and every
/// strict prefix of it is truncated.
func fuzzSeedFile() -> [UInt8] {
    var w = GGUFWriter()
    w.set("general.architecture", .string("llama"))
    w.set("u8", .uint8(7)); w.set("i8", .int8(-7)); w.set("u16", .uint16(700)); w.set("i16", .int16(-700))
    w.set("u32", .uint32(70000)); w.set("i32", .int32(-70000)); w.set("u64", .uint64(1 << 40)); w.set("i64", .int64(-1))
    w.set("f32", .float32(0.5)); w.set("f64", .float64(0.25)); w.set("bool", .bool(true))
    w.set("tokens", .array(.string(["<s>", "a", "bc"])))
    w.set("scores", .array(.float32([0, -1, -2])))
    w.set("nested", .array(.array([.uint8([1, 2]), .string(["x", "yz"])])))
    w.addTensor("embd", shape: [32, 2], type: .q8_0, data: [UInt8](repeating: 0x3C, count: 68))
    w.addTensor("norm", shape: [8], floats: [Float](repeating: 1, count: 8))
    w.addTensor("out", shape: [8, 4], floats: [Float](repeating: 2, count: 32))   // 128 bytes: no tail padding
    return w.serialize()
}

/// Parses and, on success, touches every tensor's bytes, so an out-of-bounds view would fault.
@discardableResult
func parseAndTouch(_ bytes: [UInt8]) -> Result<Int, GGUFError> {
    do {
        let file = try GGUFFile(contents: bytes)
        var sum = 0
        for t in file.tensors {
            let data = file.tensorData(t)
            #expect(data.count == t.byteCount)
            if let first = data.first, let last = data.last { sum &+= Int(first) &+ Int(last) }
        }
        return .success(sum)
    } catch {
        return .failure(error)
    }
}

@Suite struct GGUFFuzzTests {
    @Test func seedFileIsValid() throws {
        let file = try GGUFFile(contents: fuzzSeedFile())
        #expect(file.tensors.count == 3)
        #expect(file.metadataKeys.count == 15)
    }

    /// (a) Every strict prefix is rejected with a typed error.
    @Test func everyTruncationIsATypedError() {
        let seed = fuzzSeedFile()
        var failures = 0
        for length in 0..<seed.count {
            if case .success = parseAndTouch(Array(seed[..<length])) { failures += 1 }
        }
        #expect(failures == 0)
    }

    /// (b) Hostile values (0, max, huge, negative-as-unsigned) written over every header offset
    /// at widths 1, 2, 4 and 8: each must parse or throw GGUFError, never trap or hang.
    @Test func hostileOverwritesNeverCrash() throws {
        let seed = fuzzSeedFile()
        let headerEnd = try GGUFFile(contents: seed).dataOffset
        let hostile: [UInt64] = [0, 1, 0xFF, 0x7F, 0x80, 0xFFFF, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF,
                                 0x7FFF_FFFF_FFFF_FFFF, 0x8000_0000_0000_0000, 0xFFFF_FFFF_FFFF_FFFF, 1 << 33, 65, 13]
        var cases = 0, rejected = 0
        for offset in 0..<headerEnd {
            for width in [1, 2, 4, 8] where offset + width <= seed.count {
                for value in hostile {
                    var bytes = seed
                    for i in 0..<width { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))) }
                    if case .failure = parseAndTouch(bytes) { rejected += 1 }
                    cases += 1
                }
            }
        }
        #expect(cases > 20_000)
        #expect(rejected > cases / 4)   // most header fields matter; the rest are string bytes and values
        print("GGUF hostile-overwrite fuzz: \(cases) cases, \(rejected) rejected with GGUFError, 0 crashes")
    }

    /// Random multi-byte corruption anywhere in the file, seeded for reproducibility.
    @Test func randomCorruptionNeverCrashes() {
        let seed = fuzzSeedFile()
        var rng = SplitMix64(seed: 42)
        for _ in 0..<5_000 {
            var bytes = seed
            for _ in 0..<Int(rng.next() % 4 + 1) {
                bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
            }
            if rng.next() % 4 == 0 { bytes.removeLast(Int(rng.next() % UInt64(bytes.count))) }
            parseAndTouch(bytes)
        }
    }

    @Test func specificRejections() {
        var bytes = fuzzSeedFile()
        bytes[0] = UInt8(ascii: "X")
        #expect(throws: GGUFError.self) { try GGUFFile(contents: bytes) }
        bytes = fuzzSeedFile()
        bytes[4] = 1   // version 1
        #expect(throws: GGUFError.unsupportedVersion(1)) { try GGUFFile(contents: bytes) }
        #expect(throws: GGUFError.truncated(offset: 0, needed: 4, fileSize: 0)) { try GGUFFile(contents: []) }

        var w = GGUFWriter()
        w.set("general.alignment", .uint32(3))
        #expect(throws: GGUFError.badAlignment("3 is not a power of two")) { try GGUFFile(contents: w.serialize()) }

        w = GGUFWriter()
        w.set("k", .uint8(1)); w.set("k", .uint8(2))
        #expect(throws: GGUFError.duplicateKey("k")) { try GGUFFile(contents: w.serialize()) }

        w = GGUFWriter()
        w.addTensor("t", shape: [8], floats: [Float](repeating: 0, count: 8))
        let full = w.serialize()
        #expect(throws: GGUFError.tensorOutOfBounds(tensor: "t", start: UInt64(full.count - 32), length: 32,
                                                     fileSize: full.count - 1)) {
            try GGUFFile(contents: Array(full.dropLast()))
        }
    }
}

