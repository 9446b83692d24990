// Vocabulary facts that llama.cpp derives at load time (special ids, EOG set, BOS handling).
// The expected values are the ones llama.cpp reports for these files (reference README and
// llama_vocab_is_eog), not our own guesses.
import Testing
@testable import Tokenizers

@Suite struct TokenizerPropertiesTests {
    @Test func smollm() throws {
        let t = try #require(Corpus.tokenizers["smollm"], "smollm not fetched")
        #expect(t.vocabularySize == 49152)
        #expect(!t.addsBOS)
        #expect(t.bosID == 1 && t.eosID == 2)
        // <|im_end|> (eos) and <|endoftext|> end generation; <reponame> too (llama.cpp's FIM-repo rule).
        #expect(t.endOfGenerationIDs.isSuperset(of: [0, 2]))
        #expect(t.isControl(1) && t.isControl(2))
        #expect(t.encode("", addSpecial: true, parseSpecial: true) == [])
    }

    @Test func gemma() throws {
        let t = try #require(Corpus.tokenizers["gemma"], "gemma not fetched")
        #expect(t.vocabularySize == 262144)
        #expect(t.addsBOS && t.bosID == 2 && t.eosID == 1)
        #expect(t.endOfGenerationIDs.isSuperset(of: [1, 106]))
        #expect(t.encode("", addSpecial: true, parseSpecial: true) == [2])
        #expect(t.encode("<bos><bos>", addSpecial: true, parseSpecial: true) == [2, 2, 2])
        #expect(t.decode([2, 105], renderSpecial: true) == "<bos><start_of_turn>")
        #expect(t.decode([2, 105], renderSpecial: false) == "")
    }
}
