import Foundation
import GGUF

/// GGUF files crafted for the hostile-input tests, written under a fresh temporary directory.
struct CraftedModels {
    let directory: URL

    static let smollm = "\(repositoryRoot)/Models/SmolLM2-135M-Instruct.Q4_1.gguf"

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("quanta-crafted-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// A tiny random llama (8 layers, KV width 256) with SmolLM2's real tokenizer, so every
    /// command loads it in milliseconds; `contextLength` and `chatTemplate` as given.
    func tinyModel(_ name: String, contextLength: UInt64 = 4096, chatTemplate: String? = nil) throws -> String {
        let source = try GGUFFile(path: Self.smollm)
        var w = GGUFWriter()
        for key in source.metadataKeys where key.hasPrefix("tokenizer.") && (chatTemplate == nil || key != "tokenizer.chat_template") {
            w.set(key, source.metadata[key]!)
        }
        if let chatTemplate { w.set("tokenizer.chat_template", .string(chatTemplate)) }
        let vocabulary = try source.strings("tokenizer.ggml.tokens").count
        let embedding = 64, layers = 8, heads = 4, headDim = 64, ffn = 128, q = heads * headDim
        w.set("general.architecture", .string("llama"))
        w.set("llama.embedding_length", .uint32(UInt32(embedding)))
        w.set("llama.block_count", .uint32(UInt32(layers)))
        w.set("llama.feed_forward_length", .uint32(UInt32(ffn)))
        w.set("llama.attention.head_count", .uint32(UInt32(heads)))
        w.set("llama.attention.head_count_kv", .uint32(UInt32(heads)))
        w.set("llama.attention.key_length", .uint32(UInt32(headDim)))
        w.set("llama.context_length", .uint64(contextLength))
        w.set("llama.attention.layer_norm_rms_epsilon", .float32(1e-5))
        w.set("llama.rope.freq_base", .float32(10_000))
        var state: UInt64 = 7
        func weights(_ count: Int, around: Float = 0) -> [Float] {
            (0..<count).map { _ in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return around + 0.1 * (Float(state >> 40) / Float(1 << 24) - 0.5)
            }
        }
        w.addTensor("token_embd.weight", shape: [embedding, vocabulary], floats: weights(embedding * vocabulary))
        w.addTensor("output.weight", shape: [embedding, vocabulary], floats: weights(embedding * vocabulary))
        w.addTensor("output_norm.weight", shape: [embedding], floats: weights(embedding, around: 1))
        for i in 0..<layers {
            let p = "blk.\(i)."
            w.addTensor(p + "attn_norm.weight", shape: [embedding], floats: weights(embedding, around: 1))
            w.addTensor(p + "ffn_norm.weight", shape: [embedding], floats: weights(embedding, around: 1))
            for m in ["attn_q", "attn_k", "attn_v"] { w.addTensor(p + m + ".weight", shape: [embedding, q], floats: weights(embedding * q)) }
            w.addTensor(p + "attn_output.weight", shape: [q, embedding], floats: weights(embedding * q))
            w.addTensor(p + "ffn_gate.weight", shape: [embedding, ffn], floats: weights(embedding * ffn))
            w.addTensor(p + "ffn_up.weight", shape: [embedding, ffn], floats: weights(embedding * ffn))
            w.addTensor(p + "ffn_down.weight", shape: [ffn, embedding], floats: weights(embedding * ffn))
        }
        try Data(w.serialize()).write(to: directory.appendingPathComponent(name))
        return path(name)
    }

    /// The first `length` bytes of SmolLM2, as a download cut short would leave them.
    func truncatedSmolLM(_ length: Int) throws -> String {
        let name = "cut-\(length).gguf"
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: Self.smollm))
        defer { try? handle.close() }
        try handle.read(upToCount: length)!.write(to: directory.appendingPathComponent(name))
        return path(name)
    }

    /// A named pipe nobody writes to.
    func fifo(_ name: String) throws -> String {
        guard mkfifo(path(name), 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return path(name)
    }

    /// `{{ ((((...1)))) }}` nested `depth` deep.
    static func deepParentheses(_ depth: Int) -> String {
        "{{ " + String(repeating: "(", count: depth) + "1" + String(repeating: ")", count: depth) + " }}"
    }

    /// `depth` nested `{% if true %}` blocks.
    static func deepIfs(_ depth: Int) -> String {
        String(repeating: "{% if true %}", count: depth) + "x" + String(repeating: "{% endif %}", count: depth)
    }
}
