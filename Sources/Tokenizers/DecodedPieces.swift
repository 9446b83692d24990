// Every token's decoded bytes in one flat table, so streaming detokenization copies a token's
// bytes instead of decoding its vocabulary text (byte-level BPE mapping, SentencePiece `▁`,
// `<0xNN>` byte tokens) into fresh arrays for every generated token.

/// Decoded bytes of every token as `pieceBytes(_:renderSpecial: false)` gives them.
struct DecodedPieces: Sendable {
    private let bytes: [UInt8]
    /// `offsets[id] ..< offsets[id + 1]` are token `id`'s bytes.
    private let offsets: [Int32]

    init(_ vocabulary: Vocabulary) {
        var bytes: [UInt8] = []
        var offsets: [Int32] = [0]
        offsets.reserveCapacity(vocabulary.count + 1)
        for id in 0..<vocabulary.count {
            bytes += Detokenizer.pieceBytes(vocabulary, Int32(id), renderSpecial: false)
            offsets.append(Int32(bytes.count))
        }
        self.bytes = bytes
        self.offsets = offsets
    }

    /// Calls `body` with token `id`'s bytes (empty for ids outside the vocabulary).
    func withPiece<R>(_ id: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard id >= 0 && Int(id) + 1 < offsets.count else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        let start = Int(offsets[Int(id)]), end = Int(offsets[Int(id) + 1])
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<end])) }
    }
}
