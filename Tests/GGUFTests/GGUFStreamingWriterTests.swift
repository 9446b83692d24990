import Foundation
import Testing
@testable import GGUF

// Time cap: 2 s.

/// `write(to:fill:)` streams declared tensors one at a time; its file must be byte for byte what
/// the in-memory `serialize()` builds from the same tensors (whose output the round-trip tests and
/// the gguf package check).
@Suite struct GGUFStreamingWriterTests {
    /// Deterministic bytes of one tensor, from its name.
    static func bytes(_ name: String, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ name.utf8.count &* 7 &+ 1) }
    }

    static let tensors: [(name: String, shape: [Int], type: GGMLType)] = [
        ("a", [3], .f32),                 // 12 bytes: padding follows
        ("b", [32, 3], .q8_0),            // 102 bytes
        ("c", [256, 2], .q6_K),           // 420 bytes
        ("d", [5, 1], .f16),              // 10 bytes, last
    ]

    @Test(arguments: [32, 64])
    func streamedFileEqualsSerialized(alignment: Int) throws {
        // The same metadata and a tensor given up front in both.
        var inMemory = GGUFWriter(alignment: alignment)
        inMemory.set("general.architecture", .string("llama"))
        inMemory.set("tokens", .array(.string(["x", "yz"])))
        inMemory.addTensor("first", shape: [2], floats: [1, 2])
        var streamed = inMemory
        for t in Self.tensors {
            let count = streamed.declareTensor(t.name, shape: t.shape, type: t.type)
            inMemory.addTensor(t.name, shape: t.shape, type: t.type, data: Self.bytes(t.name, count: count))
        }
        let path = NSTemporaryDirectory() + "gguf-stream-\(getpid())-\(alignment).gguf"
        defer { unlink(path) }
        var asked: [String] = []
        try streamed.write(to: path) { name, buffer in
            asked.append(name)
            let data = Self.bytes(name, count: buffer.count)
            buffer.copyBytes(from: data)
        }
        #expect(asked == Self.tensors.map(\.name), "declared tensors filled once each, in order")
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let expected = inMemory.serialize()
        #expect(written.count == expected.count)
        #expect(written == expected)
        let file = try GGUFFile(contents: written)
        #expect(file.tensors.map(\.name) == ["first"] + Self.tensors.map(\.name))
        #expect(file.tensors.allSatisfy { $0.offset % alignment == 0 })
    }

    @Test func writeErrorsAreOneLine() throws {
        var w = GGUFWriter()
        w.declareTensor("t", shape: [4], type: .f32)
        do {
            try w.write(to: "/nonexistent-dir/x.gguf") { _, _ in }
            Issue.record("wrote into a missing directory")
        } catch let error as GGUFWriteError {
            #expect(error.description == "cannot write /nonexistent-dir/x.gguf: No such file or directory")
        }
        struct Stop: Error {}
        let path = NSTemporaryDirectory() + "gguf-stream-fail-\(getpid()).gguf"
        defer { unlink(path) }
        #expect(throws: Stop.self) { try w.write(to: path) { _, _ in throw Stop() } }
    }
}
