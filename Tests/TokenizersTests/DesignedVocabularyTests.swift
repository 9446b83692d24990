// Tokenizer models our two real models do not use (BERT WordPiece with three normalizer settings,
// Gemma 4's BPE), on tiny designed vocabularies, against llama.cpp's llama-tokenize on the same
// files. Fixtures: Fixtures/make_designed_vocabs.py (designed-*.gguf, designed-vocabs.jsonl).
import Foundation
import GGUF
import Testing
@testable import Tokenizers

@Suite struct DesignedVocabularyTests {
    struct Case: Decodable {
        let vocab: String
        let text: String
        let plain: [Int32]
        let special: [Int32]
    }

    static let cases: [Case] = {
        guard let data = try? Data(contentsOf: Corpus.fixtures.appendingPathComponent("designed-vocabs.jsonl"))
        else { return [] }
        let decoder = JSONDecoder()
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? decoder.decode(Case.self, from: Data($0)) }
    }()

    static func tokenizer(_ vocab: String) throws -> GGUFTokenizer {
        let path = Corpus.fixtures.appendingPathComponent("designed-\(vocab).gguf").path
        return try GGUFTokenizer(file: GGUFFile(path: path))
    }

    @Test(arguments: ["bert", "bert-cased", "bert-strip", "gemma4"])
    func matchesLlamaTokenize(vocab: String) throws {
        let cases = Self.cases.filter { $0.vocab == vocab }
        #expect(cases.count >= 100)
        let tokenizer = try Self.tokenizer(vocab)
        var mismatches = 0
        for c in cases {
            let plain = tokenizer.encode(c.text, addSpecial: false, parseSpecial: false)
            // llama-tokenize's defaults: add_special = the model's add_bos, parse_special on.
            let special = tokenizer.encode(c.text, addSpecial: tokenizer.addsBOS, parseSpecial: true)
            if plain != c.plain || special != c.special {
                mismatches += 1
                if mismatches <= 5 {
                    Issue.record("\(vocab) \(c.text.debugDescription): plain \(plain) want \(c.plain), special \(special) want \(c.special)")
                }
            }
        }
        #expect(mismatches == 0)
    }

    /// The cases exercise what the fixtures were designed for, so a tokenizer that ignored a
    /// rule could not pass by accident.
    @Test func fixtureCoversTheRules() throws {
        func ids(_ vocab: String, _ text: String) -> [Int32]? {
            Self.cases.first { $0.vocab == vocab && $0.text == text }?.plain
        }
        // Lowercasing and accent stripping change the ids; casing alone does too.
        #expect(ids("bert", "Café") != ids("bert-cased", "Café"))
        #expect(ids("bert-cased", "café") != ids("bert-strip", "café"))
        // An unmatchable word is one [UNK] (100), a matchable one is not.
        #expect(ids("bert", "xyz") == [100])
        #expect(ids("bert", "hello")?.contains(100) == false)
        // Gemma 4 adds BOS though its file says add_bos_token = false.
        let gemma = try Self.tokenizer("gemma4")
        #expect(gemma.addsBOS && gemma.encode("hello", addSpecial: true, parseSpecial: false).first == 2)
    }

    /// Decoding WordPiece and Gemma 4 ids turns U+2581 back into spaces.
    @Test func decodesEscapedSpaces() throws {
        let bert = try Self.tokenizer("bert")
        #expect(bert.decode(bert.encode("hello world", addSpecial: false, parseSpecial: false), renderSpecial: false)
                == " hello world")
        let gemma = try Self.tokenizer("gemma4")
        #expect(gemma.decode(gemma.encode("hello world", addSpecial: false, parseSpecial: false), renderSpecial: false)
                == "hello world")
    }
}
