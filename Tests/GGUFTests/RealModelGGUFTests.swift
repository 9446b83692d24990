import Testing
import GGUF

enum ModelPaths {
    static let root = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
    static let smollm = root + "/Models/SmolLM2-135M-Instruct.Q4_1.gguf"
    static let gemma = root + "/Models/gemma-3-270m-q4_k_m.gguf"
}

@Suite struct RealModelGGUFTests {
    @Test func smolLM2Directory() throws {
        let file = try GGUFFile(path: ModelPaths.smollm)
        #expect(file.architecture == "llama")
        #expect(file.tensors.count == 272)
        #expect(try file.int("llama.block_count") == 30)
        #expect(try file.int("llama.embedding_length") == 576)
        #expect(try file.strings("tokenizer.ggml.tokens").count == 49152)
        let embd = try file.requireTensor("token_embd.weight")
        #expect(embd.type == .q8_0 && embd.shape == [576, 49152])
        #expect(Set(file.tensors.map(\.type)) == [.f32, .q4_1, .q8_0])
    }

    @Test func gemma3Directory() throws {
        let file = try GGUFFile(path: ModelPaths.gemma)
        #expect(file.architecture == "gemma3")
        #expect(file.tensors.count == 236)
        #expect(try file.int("gemma3.block_count") == 18)
        #expect(try file.strings("tokenizer.ggml.tokens").count == 262144)
        guard case .float32(let scores) = try file.array("tokenizer.ggml.scores") else {
            Issue.record("scores are not f32"); return
        }
        #expect(scores.count == 262144)
        #expect(Set(file.tensors.map(\.type)) == [.f32, .q5_0, .q8_0, .q4_K, .q6_K])
        // Every tensor lies inside the file and after the header.
        for t in file.tensors { #expect(t.fileOffset >= file.dataOffset && t.fileOffset + t.byteCount <= file.bytes.count) }
    }
}
