// The pre-tokenizers our two models do not use (llama3, qwen2, qwen35, gpt2, default, falcon, tekken),
// checked against llama.cpp with SmolLM2's vocabulary and merges under other `tokenizer.ggml.pre`
// values. Fixture: make_corpus.py --pre-variants (llama.cpp ids for every corpus string).
import Foundation
import GGUF
import Testing
@testable import Tokenizers

@Suite struct PreTokenizerVariantTests {
    struct Record: Decodable {
        struct Variant: Decodable {
            let plain: [Int32]
            let special: [Int32]
            let plain_decoded: String?
        }
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        let text: String
        let variants: [String: Variant]

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            text = try c.decode(String.self, forKey: Key(stringValue: "text"))
            var v: [String: Variant] = [:]
            for key in c.allKeys where key.stringValue != "text" {
                v[key.stringValue] = try c.decode(Variant.self, forKey: key)
            }
            variants = v
        }
    }

    static let records: [Record] = {
        guard let data = try? Data(contentsOf: Corpus.fixtures.appendingPathComponent("tokenizer-pretokenizers.jsonl"))
        else { return [] }
        let decoder = JSONDecoder()
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? decoder.decode(Record.self, from: Data($0)) }
    }()

    /// SmolLM2's tokenizer metadata with `tokenizer.ggml.pre` replaced, as an in-memory GGUF.
    static func tokenizer(pre: String) throws -> GGUFTokenizer {
        let source = try #require(Corpus.files["smollm"], "smollm not fetched")
        var writer = GGUFWriter()
        writer.set("general.architecture", .string("llama"))
        for key in source.metadataKeys where key.hasPrefix("tokenizer.ggml.") {
            writer.set(key, key == "tokenizer.ggml.pre" ? .string(pre) : source.metadata[key]!)
        }
        return try GGUFTokenizer(file: GGUFFile(contents: writer.serialize()))
    }

    @Test(arguments: ["llama-bpe", "qwen2", "qwen35", "gpt-2", "default", "falcon", "tekken"])
    func matchesLlamaCpp(pre: String) throws {
        #expect(Self.records.count >= 439)
        let tokenizer = try Self.tokenizer(pre: pre)
        var mismatches = 0
        for record in Self.records {
            let expected = try #require(record.variants[pre])
            let plain = tokenizer.encode(record.text, addSpecial: false, parseSpecial: false)
            let special = tokenizer.encode(record.text, addSpecial: true, parseSpecial: true)
            if plain != expected.plain || special != expected.special {
                mismatches += 1
                if mismatches <= 5 {
                    Issue.record("\(pre) \(record.text.debugDescription): plain \(plain) want \(expected.plain)")
                }
            }
            if let want = expected.plain_decoded {
                // gpt-2/default/falcon clean spaces in the decoder; the comparison covers that too.
                #expect(tokenizer.decode(expected.plain, renderSpecial: false) == want,
                        "\(pre) decode \(record.text.debugDescription)")
            }
        }
        #expect(mismatches == 0)
    }
}
