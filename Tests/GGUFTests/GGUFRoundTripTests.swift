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
