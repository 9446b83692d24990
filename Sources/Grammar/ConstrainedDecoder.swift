// The façade the decode loop drives: mask the logits, accept the sampled token, and force the
// shortest completion when the token budget is about to run out.

/// Constrains one generation to documents of a `JSONGrammar`.
///
/// Per step: `mask(&logits)`, sample, `accept(token)`. When `mustFinish(remainingTokens:)` says the
/// budget is tight, emit `forcedCompletion()` instead of sampling; the result is then a complete
/// document. Once `isComplete`, only end-of-generation tokens are allowed.
public struct ConstrainedDecoder: Sendable {
    /// The vocabulary the masks are over.
    public let vocabulary: TokenVocabulary
    /// The byte-level state after the accepted tokens.
    public private(set) var matcher: JSONMatcher
    /// The document bytes accepted so far.
    public private(set) var bytes: [UInt8] = []
    /// Scratch mask reused every step so masking allocates no per-vocabulary buffers.
    private var allowed: TokenSet

    /// A decoder at the start of a document; throws for schemas or patterns that cannot be enforced.
    public init(grammar: JSONGrammar, vocabulary: TokenVocabulary) throws(GrammarError) {
        self.vocabulary = vocabulary
        matcher = try JSONMatcher(grammar: grammar)
        allowed = TokenSet(count: vocabulary.count)
    }

    /// Whether the whole document has been written (only end-of-generation may follow).
    public var isComplete: Bool { matcher.isComplete }

    /// The accepted text, for parsing a partial document.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Sets the logit of every token that cannot come next to -infinity.
    public mutating func mask(_ logits: inout [Float]) {
        vocabulary.allowedTokens(after: matcher, into: &allowed)
        allowed.maskDisallowed(in: &logits)
    }

    /// The tokens that may come next, in increasing id order.
    public mutating func allowedTokens() -> [Int32] {
        vocabulary.allowedTokens(after: matcher, into: &allowed)
        return allowed.members
    }

    /// Advances past `token`; returns false (changing nothing) if it was not allowed.
    @discardableResult
    public mutating func accept(_ token: Int32) -> Bool {
        if vocabulary.endOfGeneration.contains(token) { return matcher.isComplete }
        guard !matcher.isComplete, token >= 0, Int(token) < vocabulary.count else { return false }
        let tokenBytes = vocabulary.tokenBytes[Int(token)]
        guard !tokenBytes.isEmpty, matcher.feed(tokenBytes) else { return false }
        bytes += tokenBytes
        return true
    }

    /// The fewest bytes that finish the document from here.
    public var shortestCompletion: [UInt8] { matcher.shortestCompletion }

    /// Whether the remaining budget is too tight to do anything but finish: `remainingTokens` is at most
    /// the shortest completion's byte count plus `margin` (a token spells at least one byte).
    public func mustFinish(remainingTokens: Int, margin: Int = 4) -> Bool {
        !isComplete && remainingTokens <= shortestCompletion.count + margin
    }

    /// Tokens that complete the document, spelling the shortest completion with the longest tokens
    /// that fit. Where no token spells the next completion bytes, the allowed token that leaves the
    /// shortest completion is used instead. Empty once complete.
    public func forcedCompletion() -> [Int32] {
        var simulated = self
        var tokens: [Int32] = []
        // Each step shortens the completion or (fallback) picks the best allowed token; bound the loop.
        var stepsLeft = shortestCompletion.count * 2 + 16
        while !simulated.isComplete, stepsLeft > 0 {
            stepsLeft -= 1
            let completion = simulated.shortestCompletion
            guard let token = simulated.longestToken(spelling: completion) ?? simulated.bestAllowedToken(),
                  simulated.accept(token) else { break }
            tokens.append(token)
        }
        return tokens
    }

    /// The longest token whose bytes are a prefix of `target`.
    private func longestToken(spelling target: [UInt8]) -> Int32? {
        let trie = vocabulary.allTokens
        var node = ByteTrie.root
        var best: Int32?
        for byte in target {
            guard let child = trie.child(of: node, byte: byte) else { break }
            node = child
            if let id = trie.tokens(at: node).first { best = id }
        }
        return best
    }

    /// The allowed token after which the shortest completion is shortest.
    private mutating func bestAllowedToken() -> Int32? {
        var best: (token: Int32, remaining: Int)?
        for token in allowedTokens() {
            var trial = matcher
            guard trial.feed(vocabulary.tokenBytes[Int(token)]) else { continue }
            let remaining = trial.shortestCompletion.count
            if remaining < (best?.remaining ?? .max) { best = (token, remaining) }
        }
        return best?.token
    }
}
