// The trie walk and its free-string fast path must allow exactly the tokens a brute-force check
// allows: every token's bytes fed to a copy of the matcher.
import TestSupport
import GGUF
import Grammar
import Tokenizers
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
    var generator = seededGenerator(seed: seed)
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
        var logits = [Float](repeating: 1, count: vocabulary.count)
        allowed.maskDisallowed(in: &logits)
        let unmasked = logits.indices.filter { logits[$0] == 1 }.map(Int32.init)
        #expect(unmasked == expected && !logits.contains { $0 != 1 && $0 != -.infinity })
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

/// Documents as a model would write them: the tokenizer's own encoding must pass every mask.
@Test(arguments: ["SmolLM2-135M-Instruct.Q4_1.gguf", "gemma-3-270m-q4_k_m.gguf"])
func naturalTokenizationsPassTheMasks(file: String) throws {
    let loaded = try (file.hasPrefix("SmolLM2") ? Vocabularies.smolLM2 : Vocabularies.gemma3).get()
    let tokenizer = try GGUFTokenizer(file: try GGUFFile(path: Vocabularies.modelsDirectory.appendingPathComponent(file).path))
    let documents: [(JSONGrammar, String)] = [
        (Grammars.record, #"{"name": "Ada Lovelace, \"Enchantress of Numbers\" — née Byron 😀", "kind": "gamma \"delta\"", "count": 12, "tags": ["math", "poetry\n"], "score": -4.25, "code": "ADA-1843", "done": true}"#),
        (Grammars.toolCall, "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"zone\": \"Europe/Isle_of_man\"}}\n</tool_call>"),
        (Grammars.tree, #"{"value": 1, "children": [{"value": -5, "label": "leaf"}, {"value": 0, "label": null, "children": []}]}"#),
        (Grammars.freeObject, #"{"name": "Tom", "age": 3, "toys": ["ball", {"kind": "mouse", "squeaks": true}], "owner": null, "weight": -4.5}"#),
    ]
    for (grammar, document) in documents {
        var decoder = try ConstrainedDecoder(grammar: grammar, vocabulary: loaded.vocabulary)
        for token in tokenizer.encode(document, addSpecial: false, parseSpecial: false) {
            let isAllowed = decoder.allowedTokens().contains(token)
            #expect(isAllowed, "\(file): token \(token) \(tokenizer.piece(token).debugDescription) refused after \(decoder.text.debugDescription)")
            guard decoder.accept(token) else { break }
        }
        #expect(decoder.isComplete && decoder.text == document)
        let endOfGeneration = decoder.allowedTokens()
        #expect(!endOfGeneration.isEmpty && endOfGeneration.allSatisfy { loaded.vocabulary.endOfGeneration.contains($0) })
    }
}

/// Brute force at every step of a natural document: escapes, split characters, numbers, patterns, choices.
@Test func smolLM2MasksEqualBruteForceAlongANaturalDocument() throws {
    let loaded = try Vocabularies.smolLM2.get()
    let path = Vocabularies.modelsDirectory.appendingPathComponent("SmolLM2-135M-Instruct.Q4_1.gguf").path
    let tokenizer = try GGUFTokenizer(file: try GGUFFile(path: path))
    let document = #"{"name": "tab\there \"q\" \u00e9 née 😀", "kind": "alpha", "count": 10, "tags": ["x"], "score": -4.25, "code": "QRS-77", "done": false}"#
    var decoder = try ConstrainedDecoder(grammar: Grammars.record, vocabulary: loaded.vocabulary)
    var states: [JSONMatcher] = []
    for token in tokenizer.encode(document, addSpecial: false, parseSpecial: false) {
        states.append(decoder.matcher)
        guard decoder.accept(token) else { break }
    }
    states.append(decoder.matcher)
    #expect(decoder.isComplete)
    compareWithBruteForce(loaded.vocabulary, tokenBytes: loaded.tokenBytes, states: states)
}
