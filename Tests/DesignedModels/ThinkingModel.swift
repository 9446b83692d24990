import Foundation
import GGUF

/// A tiny llama GGUF whose greedy decoding is designed, not learned: after `<|assistant|>` it
/// emits `<think>`, twenty thought words, `</think>`, three answer words and `</s>`.
///
/// How: attention and FFN output projections are zero, so the final hidden state is the
/// RMS-normalised input embedding. Each token on the chain gets a one-hot embedding (its own
/// axis), and the untied output matrix's row for token b has a 1 on the axis of the token a
/// that precedes it, so token a's logits are √d for b and 0 for everything else. The model is a
/// pure bigram, which also means a forced `</think>` continues with the answer.
public enum ThinkingModel {
    public static let specials: [(String, Int32)] = [
        ("<unk>", 2), ("<s>", 3), ("</s>", 3), ("<think>", 4), ("</think>", 4),
        ("<|user|>", 3), ("<|assistant|>", 3), ("<|system|>", 3),
    ]
    public static let thoughts = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                           "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
                           "nineteen", "twenty"]
    public static let answer = ["Paris", "is", "lovely"]
    public static let template = """
        {{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}{% endfor %}\
        {% if add_generation_prompt %}<|assistant|>{% endif %}
        """

    /// Vocabulary: the specials, "▁word" for every thought and answer word, then 256 byte tokens.
    public static var tokens: [String] {
        specials.map(\.0) + (thoughts + answer).map { "▁" + $0 } + byteTokens
    }

    /// The 256 byte-fallback tokens `<0x00>` … `<0xFF>`, the end of every designed vocabulary.
    public static let byteTokens = (0..<256).map { "<0x" + String(format: "%02X", $0) + ">" }

    public static func id(_ token: String) -> Int { tokens.firstIndex(of: token)! }
    public static func word(_ w: String) -> Int { id("▁" + w) }

    /// The designed greedy path, each token followed by the next.
    public static var chain: [Int] {
        [id("<|assistant|>"), id("<think>")] + thoughts.map(word) + [id("</think>")] + answer.map(word) + [id("</s>")]
    }

    public static func gguf() -> [UInt8] {
        designedBigram(tokens: tokens, types: specials.map(\.1) + [Int32](repeating: 1, count: thoughts.count + answer.count)
                        + [Int32](repeating: 6, count: 256),
                       edges: Array(zip(chain, chain.dropFirst())), template: template, bos: 1, eos: 2, addBOS: nil)
    }

    /// A one-layer llama GGUF whose greedy next token after token a is b for every (a, b) in
    /// `edges` (see the type's comment): SentencePiece vocabulary `tokens` with token types `types`.
    public static func designedBigram(tokens: [String], types: [Int32], edges: [(Int, Int)], template: String,
                               bos: Int, eos: Int, addBOS: Bool?, contextLength: Int = 256) -> [UInt8] {
        let vocab = tokens.count, d = 32
        var embedding = [Float](repeating: 0, count: vocab * d)   // [vocab][d]
        var output = [Float](repeating: 0, count: vocab * d)      // [vocab][d]
        var axis: [Int: Int] = [:]
        for (a, _) in edges where axis[a] == nil { axis[a] = axis.count }
        precondition(axis.count <= d)
        for (a, k) in axis { embedding[a * d + k] = 1 }
        for (a, b) in edges { output[b * d + axis[a]!] = 1 }

        var g = GGUFWriter()
        g.set("general.architecture", .string("llama"))
        g.set("llama.embedding_length", .uint32(UInt32(d)))
        g.set("llama.block_count", .uint32(1))
        g.set("llama.feed_forward_length", .uint32(32))   // rows are whole 32-blocks
        g.set("llama.attention.head_count", .uint32(4))
        g.set("llama.attention.head_count_kv", .uint32(2))
        g.set("llama.attention.key_length", .uint32(8))
        g.set("llama.context_length", .uint32(UInt32(contextLength)))
        g.set("llama.attention.layer_norm_rms_epsilon", .float32(1e-5))
        g.set("llama.rope.freq_base", .float32(10_000))
        g.set("tokenizer.ggml.model", .string("llama"))
        g.set("tokenizer.ggml.tokens", .array(.string(tokens)))
        g.set("tokenizer.ggml.scores", .array(.float32([Float](repeating: 0, count: vocab))))
        g.set("tokenizer.ggml.token_type", .array(.int32(types)))
        g.set("tokenizer.ggml.bos_token_id", .uint32(UInt32(bos)))
        g.set("tokenizer.ggml.eos_token_id", .uint32(UInt32(eos)))
        if let addBOS { g.set("tokenizer.ggml.add_bos_token", .bool(addBOS)) }
        g.set("tokenizer.ggml.add_space_prefix", .bool(false))
        g.set("tokenizer.chat_template", .string(template))
        let zeros = { (n: Int) in [Float](repeating: 0, count: n) }
        let ones = { (n: Int) in [Float](repeating: 1, count: n) }
        g.addTensor("token_embd.weight", shape: [d, vocab], floats: embedding)
        g.addTensor("output.weight", shape: [d, vocab], floats: output)
        g.addTensor("output_norm.weight", shape: [d], floats: ones(d))
        g.addTensor("blk.0.attn_norm.weight", shape: [d], floats: ones(d))
        g.addTensor("blk.0.attn_q.weight", shape: [d, 32], floats: zeros(d * 32))
        g.addTensor("blk.0.attn_k.weight", shape: [d, 16], floats: zeros(d * 16))
        g.addTensor("blk.0.attn_v.weight", shape: [d, 16], floats: zeros(d * 16))
        g.addTensor("blk.0.attn_output.weight", shape: [32, d], floats: zeros(32 * d))
        g.addTensor("blk.0.ffn_norm.weight", shape: [d], floats: ones(d))
        g.addTensor("blk.0.ffn_gate.weight", shape: [d, 32], floats: zeros(d * 32))
        g.addTensor("blk.0.ffn_up.weight", shape: [d, 32], floats: zeros(d * 32))
        g.addTensor("blk.0.ffn_down.weight", shape: [32, d], floats: zeros(32 * d))
        return g.serialize()
    }

    /// Writes the model to a fresh temporary file.
    public static func write() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("quanta-thinking-\(UUID().uuidString).gguf")
        try Data(gguf()).write(to: url)
        return url
    }

    /// "▁one▁two" → " one two", as the SentencePiece decoder writes them.
    public static func text(_ words: ArraySlice<String>) -> String { words.map { " " + $0 }.joined() }
}
