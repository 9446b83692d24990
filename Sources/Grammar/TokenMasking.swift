// Which tokens may come next: a depth-first walk of the token trie that feeds each edge's byte to a
// copy of the matcher and prunes a whole subtree at the first rejected byte.

extension TokenVocabulary {
    /// Replaces `allowed` with the tokens that can come next from `matcher`'s state. When the document
    /// is complete only end-of-generation tokens are allowed; before that, never.
    public func allowedTokens(after matcher: JSONMatcher, into allowed: inout TokenSet) {
        allowed.removeAll()
        if matcher.isComplete {
            for id in endOfGeneration where Int(id) < count && id >= 0 { allowed.insert(id) }
            return
        }
        if matcher.isBetweenCharactersOfFreeString {
            // Plain tokens cannot leave a free string or break its UTF-8, so they are all allowed;
            // only the rest need the matcher.
            allowed.formUnion(plainStringTokens)
            walk(irregularTokens, node: ByteTrie.root, matcher: matcher, allowed: &allowed)
        } else {
            walk(allTokens, node: ByteTrie.root, matcher: matcher, allowed: &allowed)
        }
    }

    private func walk(_ trie: ByteTrie, node: Int, matcher: JSONMatcher, allowed: inout TokenSet) {
        let start = Int(trie.edgeStart[node])
        for edge in start..<(start + Int(trie.edgeCount[node])) {
            var next = matcher
            guard next.feed(trie.edgeByte[edge]) else { continue }
            let child = Int(trie.edgeTarget[edge])
            for id in trie.tokens(at: child) { allowed.insert(id) }
            walk(trie, node: child, matcher: next, allowed: &allowed)
        }
    }
}

extension TokenSet {
    /// Sets every logit whose token is not in the set to -infinity (logits beyond `count` too).
    public func maskDisallowed(in logits: inout [Float]) {
        logits.withUnsafeMutableBufferPointer { values in
            for (wordIndex, word) in words.enumerated() where word != .max {
                let base = wordIndex * 64
                guard base < values.count else { break }
                for bit in 0..<min(64, values.count - base) where word & (1 << UInt64(bit)) == 0 {
                    values[base + bit] = -.infinity
                }
            }
            for index in min(count, values.count)..<values.count { values[index] = -.infinity }
        }
    }
}
