// Random generations through the masks: whatever allowed tokens are picked, and however small the
// budget, the result must be a valid document by the independent references.
import TestSupport
import Foundation
import Grammar
import Testing

@Test(arguments: Grammars.all.map(\.0))
func randomWalksOverSyntheticVocabularyProduceValidDocuments(grammarName: String) throws {
    let grammar = try #require(Grammars.all.first { $0.0 == grammarName }).1
    for seed in 0..<60 as Range<UInt64> {
        // Large budgets finish naturally or are forced late; tiny ones force from the start.
        let budget = [300, 60, 25, 8, 1][Int(seed % 5)]
        let (bytes, decoder) = try randomDocument(grammar, Vocabularies.synthetic, seed: seed, budget: budget)
        #expect(decoder.isComplete, "seed \(seed): incomplete \(decoder.text)")
        #expect(ReferenceValidator.validates(bytes, grammar), "seed \(seed): invalid \(decoder.text)")
    }
}

@Test(arguments: Grammars.all.map(\.0))
func shortestCompletionFinishesFromEveryVisitedState(grammarName: String) throws {
    let grammar = try #require(Grammars.all.first { $0.0 == grammarName }).1
    for seed in 100..<120 as Range<UInt64> {
        var matcher = try JSONMatcher(grammar: grammar)
        var generator = seededGenerator(seed: seed)
        var written: [UInt8] = []
        for _ in 0..<120 where !matcher.isComplete {
            let completion = matcher.shortestCompletion
            var finished = matcher
            #expect(finished.feed(completion) && finished.isComplete, "seed \(seed) after \(String(decoding: written, as: UTF8.self))")
            #expect(ReferenceValidator.validates(written + completion, grammar), "\(String(decoding: written + completion, as: UTF8.self))")
            // Advance by a random allowed byte.
            let candidates = (0...255).map(UInt8.init).filter { var copy = matcher; return copy.feed($0) }
            guard let byte = candidates.randomElement(using: &generator) else { break }
            matcher.feed(byte)
            written.append(byte)
        }
    }
}

@Test func shortestCompletionRespectsRangesPatternsAndCounts() throws {
    func shortest(_ shape: JSONShape) throws -> String {
        String(decoding: try JSONMatcher(grammar: JSONGrammar(root: shape)).shortestCompletion, as: UTF8.self)
    }
    // Expected values worked out by hand from the rules, not taken from the code.
    #expect(try shortest(.integer(minimum: 10, maximum: 99)) == "10")
    #expect(try shortest(.integer(minimum: -50, maximum: -7)) == "-7")
    #expect(try shortest(.number(minimum: 0.25, maximum: 0.75)) == "0.3")
    #expect(try shortest(.string(.pattern(#"[A-Z]{3}\-\d+"#))) == #""AAA-0""#)
    #expect(try shortest(.array(items: .boolean, minimumCount: 2, maximumCount: nil)) == "[true,true]")
    #expect(try shortest(.string(.choices(["long", "no"]))) == #""no""#)
    #expect(try shortest(Grammars.record.root) == #"{"name":"","kind":"beta","count":1,"tags":[""]}"#)
}

@Test(arguments: ["smollm2", "gemma3"])
func randomWalksOverRealVocabulariesProduceValidDocuments(model: String) throws {
    let loaded = try (model == "smollm2" ? Vocabularies.smolLM2 : Vocabularies.gemma3).get()
    for (index, (name, grammar)) in Grammars.all.enumerated() {
        for seed in 0..<4 as Range<UInt64> {
            let budget = [200, 12, 40, 3][Int(seed)]
            let (bytes, decoder) = try randomDocument(grammar, loaded.vocabulary, seed: seed + UInt64(index) * 10, budget: budget)
            #expect(decoder.isComplete, "\(model) \(name) seed \(seed): incomplete \(decoder.text)")
            #expect(ReferenceValidator.validates(bytes, grammar), "\(model) \(name) seed \(seed): invalid \(decoder.text)")
        }
    }
}

@Test func endOfGenerationOnlyWhenComplete() throws {
    let vocabulary = Vocabularies.synthetic
    let endOfGeneration = try #require(vocabulary.endOfGeneration.first)
    var decoder = try ConstrainedDecoder(grammar: JSONGrammar(root: .boolean), vocabulary: vocabulary)
    let allowedAtStart = decoder.allowedTokens()
    #expect(!allowedAtStart.contains(endOfGeneration))
    let earlyEnd = decoder.accept(endOfGeneration)
    #expect(!earlyEnd)
    let forced = decoder.forcedCompletion().map { decoder.accept($0) }
    #expect(!forced.isEmpty && !forced.contains(false))
    #expect(decoder.isComplete)
    let allowedAtEnd = decoder.allowedTokens()
    #expect(allowedAtEnd == [endOfGeneration])
    var logits = [Float](repeating: 0, count: vocabulary.count)
    decoder.mask(&logits)
    #expect(logits.indices.filter { logits[$0] == 0 } == [Int(endOfGeneration)])
    let end = decoder.accept(endOfGeneration)
    #expect(end)
}

@Test func forcedCompletionFallsBackWithoutSingleByteTokens() throws {
    // No token spells the shortest value `0` or a lone `}`: after `{"a":` only the fallback finds `1}`.
    let pieces: [[UInt8]?] = ["{\"", "a\":", "1}", "x", "7"].map { Array($0.utf8) }
    let vocabulary = TokenVocabulary(tokenBytes: pieces, endOfGeneration: [])
    let grammar = JSONGrammar(root: .object(properties: [JSONProperty(name: "a", shape: .integer(minimum: 0, maximum: 9))]))
    var decoder = try ConstrainedDecoder(grammar: grammar, vocabulary: vocabulary)
    let forced = decoder.forcedCompletion().map { decoder.accept($0) }
    #expect(!forced.contains(false))
    #expect(decoder.isComplete && decoder.text == #"{"a":1}"#)
}
