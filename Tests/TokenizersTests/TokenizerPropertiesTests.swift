// Vocabulary facts llama.cpp derives at load time, compared with llama.cpp's own answers
// (tokenizer-vocab-facts.json from make_corpus.py: llama_vocab_bos/eos, get_add_bos/eos, and
// every id llama_vocab_is_eog / llama_vocab_is_control accepts).
import Foundation
import Testing
@testable import Tokenizers

@Suite struct TokenizerPropertiesTests {
    struct Facts: Decodable {
        let n_vocab: Int
        let bos: Int32
        let eos: Int32
        let add_bos: Bool
        let add_eos: Bool
        let eog: [Int32]
        let control: [Int32]
    }

    static let facts: [String: Facts] = {
        guard let data = try? Data(contentsOf: Corpus.fixtures.appendingPathComponent("tokenizer-vocab-facts.json"))
        else { return [:] }
        return (try? JSONDecoder().decode([String: Facts].self, from: data)) ?? [:]
    }()

    @Test(arguments: ["smollm", "gemma"]) func matchesLlamaCpp(model: String) throws {
        let t = try #require(Corpus.tokenizers[model], "model \(model) not fetched")
        let f = try #require(Self.facts[model])
        #expect(t.vocabularySize == f.n_vocab)
        #expect(t.bosID == f.bos && t.eosID == f.eos)
        #expect(t.addsBOS == f.add_bos && t.addsEOS == f.add_eos)
        // Includes llama.cpp's text-based overrides: <reponame> (FIM repo) for SmolLM2, "</s>" for Gemma.
        #expect(t.endOfGenerationIDs == Set(f.eog))
        let control = (0..<Int32(t.vocabularySize)).filter { t.isControl($0) }
        #expect(control == f.control)
    }
}
