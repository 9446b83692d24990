// The streaming detokenizer: chunks are always valid UTF-8 and add up to decode(ids).
import Testing
@testable import Tokenizers

@Suite struct StreamingTests {
    @Test(arguments: ["smollm", "gemma"]) func chunksConcatenateToDecode(model: String) throws {
        let tokenizer = try #require(Corpus.tokenizers[model], "model \(model) not fetched")
        for record in Corpus.all {
            guard let expected = record.models[model] else { continue }
            for (ids, render) in [(expected.plain, false), (expected.special, true)] {
                var stream = StreamingDetokenizer(tokenizer: tokenizer, renderSpecial: render)
                var text = ""
                for id in ids {
                    let chunk = stream.append(id)
                    // A chunk never ends inside a sequence: no replacement character appears in
                    // the stream unless the whole decode has one at that point.
                    text += chunk
                }
                text += stream.flush()
                #expect(Array(text.utf8) == Array(tokenizer.decode(ids, renderSpecial: render).utf8),
                        "\(model) \(record.text.debugDescription)")
            }
        }
    }

    /// Multi-byte characters split over byte-fallback tokens come out whole, once complete.
    @Test func holdsBackPartialUTF8() throws {
        let tokenizer = try #require(Corpus.tokenizers["gemma"], "gemma not fetched")
        // U+1F98A (fox) is four <0xNN> byte tokens in Gemma's vocabulary when it is not a token itself;
        // build the byte tokens explicitly.
        let bytes: [UInt8] = Array("🦊".utf8)
        let ids = bytes.map { b in tokenizer.vocabulary.lookup("<0x\(String(b, radix: 16, uppercase: true))>") }
        #expect(ids.allSatisfy { $0 >= 0 })
        var stream = StreamingDetokenizer(tokenizer: tokenizer)
        #expect(stream.append(ids[0]) == "")
        #expect(stream.append(ids[1]) == "")
        #expect(stream.append(ids[2]) == "")
        #expect(stream.append(ids[3]) == "🦊")
        // An invalid sequence is replaced, not held forever: a lead byte followed by ASCII.
        #expect(stream.append(ids[0]) == "")
        let a = tokenizer.encode("a", addSpecial: false, parseSpecial: false)
        #expect(stream.append(a[0]) == "\u{FFFD}a")
        #expect(stream.flush() == "")
        // A dangling lead byte at the end is flushed as U+FFFD.
        _ = stream.append(ids[0])
        #expect(stream.flush() == "\u{FFFD}")
    }
}
