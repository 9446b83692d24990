import Testing
@testable import GGUF

@Suite struct GGUFRoundTripTests {
    @Test func writerOutputParsesBack() throws {
        var w = GGUFWriter()
        w.set("general.architecture", .string("llama"))
        w.set("llama.block_count", .uint32(2))
        w.set("some.int64", .int64(-5))
        w.set("some.float", .float32(1.5))
        w.set("some.bool", .bool(true))
        w.set("tokens", .array(.string(["a", "b", "ünï"])))
        w.set("nested", .array(.array([.int32([1, 2]), .string(["x"])])))
        w.addTensor("w", shape: [4, 2], floats: [1, 2, 3, 4, 5, 6, 7, 8])
        w.addTensor("q", shape: [32, 1], type: .q8_0, data: [UInt8](repeating: 1, count: 34))
        let file = try GGUFFile(contents: w.serialize())
        #expect(file.version == 3)
        #expect(file.architecture == "llama")
        #expect(try file.int("llama.block_count") == 2)
        #expect(try file.int("some.int64") == -5)
        #expect(try file.float32("some.float") == 1.5)
        #expect(try file.bool("some.bool"))
        #expect(try file.strings("tokens") == ["a", "b", "ünï"])
        #expect(try file.array("nested") == .array([.int32([1, 2]), .string(["x"])]))
        #expect(file.metadataKeys.first == "general.architecture")
        let t = try file.requireTensor("w")
        #expect(t.shape == [4, 2] && t.type == .f32 && t.byteCount == 32 && t.rowCount == 2)
        let data = file.tensorData(t)
        #expect(data.loadUnaligned(fromByteOffset: 28, as: Float.self) == 8)
        #expect(file.tensor(named: "q")?.offset == 32)
        #expect(throws: GGUFError.missingKey("nope")) { try file.string("nope") }
        #expect(throws: GGUFError.typeMismatch(key: "some.bool", expected: "string", found: "bool")) {
            try file.string("some.bool")
        }
    }
}

/// A GGUF with no tensors may stop right after its metadata (llama.cpp's vocab-only files do);
/// one with tensors may not stop before its data.
@Suite struct UnpaddedMetadataOnlyTests {
    /// The writer's output and the offset where its metadata ends (before alignment padding).
    static func file(tensors: Bool) throws -> (bytes: [UInt8], metadataEnd: Int) {
        var w = GGUFWriter()
        w.set("general.architecture", .string("llama"))
        w.set("tokenizer.ggml.tokens", .array(.string(["<unk>", "a", "bc"])))   // 3 + 6 + ... bytes: not aligned
        if tensors { w.addTensor("w", shape: [4, 2], floats: [1, 2, 3, 4, 5, 6, 7, 8]) }
        let bytes = w.serialize()
        let aligned = try GGUFFile(contents: bytes).dataOffset
        // Walk back over the zero padding to the last metadata byte (the last string ends in "c").
        var end = aligned
        while end > 0 && bytes[end - 1] == 0 { end -= 1 }
        return (bytes, end)
    }

    @Test func metadataOnlyFileWithoutPaddingParses() throws {
        let (bytes, end) = try Self.file(tensors: false)
        #expect(end < bytes.count, "the writer pads, so the test cuts something")
        let padded = try GGUFFile(contents: bytes), cut = try GGUFFile(contents: Array(bytes[..<end]))
        #expect(cut.tensors.isEmpty && cut.dataOffset == end)
        #expect(cut.metadataKeys == padded.metadataKeys)
        #expect(try cut.strings("tokenizer.ggml.tokens") == ["<unk>", "a", "bc"])
        // Cut inside the metadata is still truncated.
        #expect(throws: GGUFError.self) { try GGUFFile(contents: Array(bytes[..<(end - 1)])) }
    }

    @Test func fileWithTensorsStillNeedsItsData() throws {
        let bytes = try Self.file(tensors: true).bytes
        let dataStart = try GGUFFile(contents: bytes).dataOffset
        #expect(throws: GGUFError.self) { try GGUFFile(contents: Array(bytes[..<dataStart])) }
        #expect(throws: GGUFError.self) { try GGUFFile(contents: Array(bytes[..<(dataStart - 1)])) }
    }
}
