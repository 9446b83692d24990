// Guided generation in the decode loop: every answer token is chosen from the logits with the
// tokens that cannot continue the document masked out, and when the token budget runs short
// the shortest completion is forced, so the answer always parses and validates.
import LanguageModelAPI
import Grammar
import Sampling

/// An `OutputGate` over a JSON grammar (a schema, or a tool-call envelope).
struct JSONGate: OutputGate {
    private var decoder: ConstrainedDecoder
    /// Tokens of a forced completion not yet emitted.
    private var forced: [Int32] = []
    private(set) var didForceCompletion = false

    init(grammar: JSONGrammar, vocabulary: TokenVocabulary) throws(GrammarError) {
        decoder = try ConstrainedDecoder(grammar: grammar, vocabulary: vocabulary)
    }

    mutating func next(logits: inout [Float], remaining: Int, sampler: inout Sampler) -> Int32 {
        if forced.isEmpty && decoder.mustFinish(remainingTokens: remaining) {
            forced = decoder.forcedCompletion()
            didForceCompletion = true
        }
        if !forced.isEmpty { return forced.removeFirst() }
        decoder.mask(&logits)
        return sampler.sample(&logits)
    }

    mutating func accept(_ token: Int32) {
        decoder.accept(token)
    }
}

extension LoadedModel {
    /// The vocabulary as constrained decoding sees it: each token's decoded bytes, control tokens
    /// excluded (they never appear inside a document), and the end-of-generation ids. Built on
    /// first use (a trie over the whole vocabulary) and kept for the process.
    var grammarVocabulary: TokenVocabulary {
        grammarVocabularyCache.withLock { cached in
            if let cached { return cached }
            let vocabulary = TokenVocabulary(tokenBytes: tokenizer.textPieces(), endOfGeneration: tokenizer.endOfGenerationIDs)
            cached = vocabulary
            return vocabulary
        }
    }
}
