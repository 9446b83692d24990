// Incremental decoding for generation: text comes out as tokens arrive, never with a partial
// UTF-8 sequence, and the concatenation of all chunks equals `decode(ids)`.

/// Turns a stream of token ids into text chunks.
///
/// Bytes of an unfinished UTF-8 sequence at the end are held back until the sequence completes
/// (or turns out invalid, when it is replaced by U+FFFD). For models whose decoder cleans spaces
/// (gpt2-style), a trailing space is also held back until the next characters show whether the
/// clean-up removes it.
public struct StreamingDetokenizer {
    private let tokenizer: any Tokenizer
    private let renderSpecial: Bool
    private var pending: [UInt8] = []
    private var isFirst = true

    /// - Parameter renderSpecial: include the text of control tokens, as in `decode`.
    public init(tokenizer: any Tokenizer, renderSpecial: Bool = false) {
        self.tokenizer = tokenizer
        self.renderSpecial = renderSpecial
    }

    /// Adds one token and returns the text that is now final (possibly empty).
    public mutating func append(_ id: Int32) -> String {
        let strip = isFirst && tokenizer.stripsLeadingSpace
        tokenizer.withPieceBytes(id, renderSpecial: renderSpecial) { piece in
            pending.append(contentsOf: strip && piece.first == 0x20 ? UnsafeBufferPointer(rebasing: piece.dropFirst()) : piece)
        }
        isFirst = false
        let cut = stablePrefixLength()
        if cut == 0 { return "" }
        return emit(cut)
    }

    /// Returns everything still held back (invalid bytes replaced) and resets the stream.
    public mutating func flush() -> String {
        let text = emit(pending.count)
        isFirst = true
        return text
    }

    private mutating func emit(_ count: Int) -> String {
        // The clean-up passes only ever remove spaces: a chunk without one is final as it is.
        let text = tokenizer.cleansSpaces && pending[0..<count].contains(0x20)
            ? String(decoding: Detokenizer.cleanSpaces(Array(pending[0..<count])), as: UTF8.self)
            : String(decoding: pending[0..<count], as: UTF8.self)
        pending.removeSubrange(0..<count)
        return text
    }

    /// How many leading bytes of `pending` can be emitted now.
    private func stablePrefixLength() -> Int {
        var cut = pending.count
        // Hold back an unfinished multi-byte sequence: find the last lead byte in the final 3 bytes.
        var i = pending.count - 1
        while i >= 0 && i >= pending.count - 4 {
            let b = pending[i]
            if b & 0xC0 != 0x80 {
                if b >= 0xC0 {
                    let need = UTF8Scan.sequenceLength(b)
                    if pending.count - i < need { cut = i }
                }
                break
            }
            i -= 1
        }
        // The clean-up passes look at most 3 bytes past a space: keep such a space back.
        if tokenizer.cleansSpaces {
            var j = cut - 1
            while j >= 0 && j >= cut - 3 {
                if pending[j] == 0x20 { cut = j; break }
                j -= 1
            }
        }
        return cut
    }
}
