// What masking needs to know about a model's tokens, built once per model and shared by every
// constrained generation with it.

/// A model's tokens as byte strings, indexed for fast token masks. Immutable and shareable.
public final class TokenVocabulary: Sendable {
    /// Number of token ids (the logits' length).
    public let count: Int
    /// Tokens that end generation; allowed exactly when the document is complete.
    public let endOfGeneration: Set<Int32>
    /// Decoded bytes per token; empty for tokens never allowed inside a document.
    let tokenBytes: [[UInt8]]
    /// Every token allowed inside a document.
    let allTokens: ByteTrie
    /// Tokens that are not `plainStringTokens`: the only ones a free-string mask must walk.
    let irregularTokens: ByteTrie
    /// Tokens made only of string content that needs no escaping: complete UTF-8 characters, no
    /// control bytes, no `"` or `\`. Inside a free string each of them is allowed without a walk.
    let plainStringTokens: TokenSet

    /// Indexes a vocabulary. `tokenBytes[id]` is the token's decoded text as bytes, or nil for tokens
    /// that may never appear in a document (control tokens); empty byte strings are treated as nil.
    public init(tokenBytes: [[UInt8]?], endOfGeneration: Set<Int32>) {
        count = tokenBytes.count
        self.endOfGeneration = endOfGeneration
        let bytes = tokenBytes.enumerated().map { id, bytes in
            endOfGeneration.contains(Int32(id)) ? [] : bytes ?? []
        }
        self.tokenBytes = bytes
        let usable = bytes.indices.filter { !bytes[$0].isEmpty }.map { Int32($0) }
        var plain = TokenSet(count: bytes.count)
        var irregular: [Int32] = []
        for id in usable {
            if TokenVocabulary.isPlainStringContent(bytes[Int(id)]) { plain.insert(id) } else { irregular.append(id) }
        }
        plainStringTokens = plain
        allTokens = ByteTrie(tokens: usable, bytes: bytes)
        irregularTokens = ByteTrie(tokens: irregular, bytes: bytes)
    }

    /// The bytes a token contributes to a document, or nil if it may never appear in one.
    public func bytes(of token: Int32) -> [UInt8]? {
        guard token >= 0, Int(token) < count, !tokenBytes[Int(token)].isEmpty else { return nil }
        return tokenBytes[Int(token)]
    }

    private static func isPlainStringContent(_ bytes: [UInt8]) -> Bool {
        var phase = StringScanPhase.between
        for byte in bytes {
            switch phase.scan(byte) {
            case .rejected, .closed: return false
            case .scalar: phase = .between
            case let .partial(next, _):
                if next == .escape { return false }
                phase = next
            }
        }
        return phase == .between
    }
}

/// A set of token ids as a bitset; reused across steps so masking allocates nothing.
public struct TokenSet: Sendable, Equatable {
    private(set) var words: [UInt64]
    /// Number of token ids the set ranges over.
    public let count: Int

    /// An empty set over ids `0..<count`.
    public init(count: Int) {
        self.count = count
        words = [UInt64](repeating: 0, count: (count + 63) / 64)
    }

    public func contains(_ id: Int32) -> Bool {
        id >= 0 && Int(id) < count && words[Int(id) >> 6] & (1 << UInt64(id & 63)) != 0
    }

    public mutating func insert(_ id: Int32) { words[Int(id) >> 6] |= 1 << UInt64(id & 63) }

    mutating func removeAll() {
        for index in words.indices { words[index] = 0 }
    }

    /// Adds every member of `other` (same `count`).
    mutating func formUnion(_ other: TokenSet) {
        for index in words.indices { words[index] |= other.words[index] }
    }

    /// The members in increasing order.
    public var members: [Int32] {
        var result: [Int32] = []
        for (index, word) in words.enumerated() where word != 0 {
            var rest = word
            while rest != 0 {
                result.append(Int32(index * 64 + rest.trailingZeroBitCount))
                rest &= rest - 1
            }
        }
        return result
    }
}
