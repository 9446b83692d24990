// Exact agreement with llama.cpp on the reference corpora, both models, both modes.
import Testing
@testable import Tokenizers

@Suite struct ReferenceCorpusTests {
    static let models = ["smollm", "gemma"]

    /// plain: addSpecial = false, parseSpecial = false.
    @Test(arguments: models) func plainIDsMatchLlamaCpp(model: String) throws {
        let tokenizer = try #require(Corpus.tokenizers[model], "model \(model) not fetched")
        #expect(Corpus.all.count >= 123 + 316)
        var mismatches = 0
        for record in Corpus.all {
            guard let expected = record.models[model] else { continue }
            let ids = tokenizer.encode(record.text, addSpecial: false, parseSpecial: false)
            if ids != expected.plain {
                mismatches += 1
                Issue.record("\(model) plain \(record.text.debugDescription): got \(ids) want \(expected.plain)")
            }
        }
        #expect(mismatches == 0)
    }

    /// special: addSpecial = model default, parseSpecial = true.
    @Test(arguments: models) func specialIDsMatchLlamaCpp(model: String) throws {
        let tokenizer = try #require(Corpus.tokenizers[model], "model \(model) not fetched")
        var mismatches = 0
        for record in Corpus.all {
            guard let expected = record.models[model] else { continue }
            let ids = tokenizer.encode(record.text, addSpecial: true, parseSpecial: true)
            if ids != expected.special {
                mismatches += 1
                Issue.record("\(model) special \(record.text.debugDescription): got \(ids) want \(expected.special)")
            }
        }
        #expect(mismatches == 0)
    }

    /// Decoding llama.cpp's ids gives llama_detokenize's text, and plain text round-trips.
    @Test(arguments: models) func decodeMatchesLlamaCpp(model: String) throws {
        let tokenizer = try #require(Corpus.tokenizers[model], "model \(model) not fetched")
        for record in Corpus.all {
            guard let expected = record.models[model] else { continue }
            let plain = tokenizer.decode(expected.plain, renderSpecial: false)
            if let want = expected.plainDecoded {
                #expect(plain == want, "\(model) plain_decoded \(record.text.debugDescription)")
            }
            if let want = expected.specialDecoded {
                let special = tokenizer.decode(expected.special, renderSpecial: true)
                #expect(special == want, "\(model) special_decoded \(record.text.debugDescription)")
            }
            // decode(encode(x)) == x wherever llama.cpp's tokenizer is lossless on x (SmolLM2's vocabulary
            // has no token for some control bytes, which llama.cpp then drops). Compare bytes: String ==
            // would accept canonically-equivalent but different text.
            let lossless = Array(plain.utf8) == Array(record.text.utf8)
            #expect(lossless == expected.plainRoundtripOK, "\(model) roundtrip \(record.text.debugDescription)")
        }
    }
}
