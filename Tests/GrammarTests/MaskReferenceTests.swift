// The trie walk and its free-string fast path must allow exactly the tokens a brute-force check
// allows: every token's bytes fed to a copy of the matcher.
import Grammar
import Testing

/// Tokens whose whole byte string the matcher accepts (end-of-generation only when complete).
private func bruteForceAllowed(_ matcher: JSONMatcher, tokenBytes: [[UInt8]?], endOfGeneration: Set<Int32>) -> [Int32] {
    if matcher.isComplete { return endOfGeneration.sorted() }
    return tokenBytes.indices.compactMap { id in
        guard !endOfGeneration.contains(Int32(id)), let bytes = tokenBytes[id], !bytes.isEmpty else { return nil }
        var copy = matcher
        return copy.feed(bytes) ? Int32(id) : nil
    }
}

/// Matchers reached by random walks, including states inside strings, numbers and keys.
private func sampleStates(_ vocabulary: TokenVocabulary, count: Int, seed: UInt64) throws -> [JSONMatcher] {
    var states: [JSONMatcher] = []
    var generator = SeededGenerator(seed: seed)
    for (_, grammar) in Grammars.all {
        var decoder = try ConstrainedDecoder(grammar: grammar, vocabulary: vocabulary)
        for _ in 0..<count where !decoder.isComplete {
            if Bool.random(using: &generator) { states.append(decoder.matcher) }
            guard let token = decoder.allowedTokens().randomElement(using: &generator) else { break }
            decoder.accept(token)
        }
        states.append(decoder.matcher)
    }
    return states
}

private func compareWithBruteForce(_ vocabulary: TokenVocabulary, tokenBytes: [[UInt8]?], states: [JSONMatcher]) {
    var allowed = TokenSet(count: vocabulary.count)
    for matcher in states {
        vocabulary.allowedTokens(after: matcher, into: &allowed)
        let expected = bruteForceAllowed(matcher, tokenBytes: tokenBytes, endOfGeneration: vocabulary.endOfGeneration)
        #expect(allowed.members == expected, "state after \(matcher.shortestCompletion.count)-byte completion")
    }
}

@Test func syntheticMasksEqualBruteForce() throws {
    let vocabulary = Vocabularies.synthetic
    let pieces = Vocabularies.syntheticPieces
    compareWithBruteForce(vocabulary, tokenBytes: pieces, states: try sampleStates(vocabulary, count: 60, seed: 7))
}

@Test(arguments: ["smollm2", "gemma3"])
func realVocabularyMasksEqualBruteForce(model: String) throws {
    let loaded = try (model == "smollm2" ? Vocabularies.smolLM2 : Vocabularies.gemma3).get()
    let states = try sampleStates(loaded.vocabulary, count: 12, seed: model == "smollm2" ? 1 : 2)
    compareWithBruteForce(loaded.vocabulary, tokenBytes: loaded.tokenBytes, states: states)
}
