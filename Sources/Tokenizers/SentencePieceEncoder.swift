// SentencePiece-style BPE (tokenizer.ggml.model = "llama"), llama.cpp's `llm_tokenizer_spm_session`:
// start from UTF-8 characters and repeatedly merge the adjacent pair whose concatenation is a
// token with the highest score (leftmost on ties). Whatever is left that is not a token is spelled
// with byte-fallback tokens `<0xNN>`.

struct SentencePieceEncoder: Sendable {
    private let table: ByteTable
    private let scores: [Float]
    /// Token for each byte: `<0xNN>`, else the one-byte string, else -1.
    private let byteTokens: [Int32]
    private let unknown: Int32

    init(vocabulary v: Vocabulary) {
        table = v.table
        scores = v.scores
        unknown = v.unk
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        byteTokens = (0..<256).map { b in
            let name: [UInt8] = [0x3C, 0x30, 0x78, hex[b >> 4], hex[b & 15], 0x3E]  // <0xNN>
            let id = v.table.lookup(name)
            return id >= 0 ? id : v.table.lookup([UInt8(b)])
        }
    }

    /// Maps a score to a sort key where a higher score sorts first.
    @inline(__always)
    private static func priority(_ score: Float) -> UInt64 {
        let bits = score.bitPattern
        let ascending = bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
        return UInt64(~ascending)
    }

    struct Scratch {
        var symbols = SymbolList()
        var queue = MergeQueue()
    }

    /// Encodes already-escaped text (spaces are U+2581).
    func encode(_ text: UnsafeBufferPointer<UInt8>, into out: inout [Int32]) {
        if text.isEmpty { return }
        var s = Scratch()
        var offset = 0
        while offset < text.count {
            let len = min(UTF8Scan.sequenceLength(text[offset]), text.count - offset)
            s.symbols.append(start: offset, length: len)
            offset += len
        }
        s.symbols.close()
        for i in 1..<s.symbols.count { addCandidate(i - 1, i, text, &s) }
        while !s.queue.isEmpty {
            let c = s.queue.pop()
            let left = Int(c.key & 0xFFFF_FFFF), right = Int(c.right)
            let ll = s.symbols.length[left], rl = s.symbols.length[right]
            if ll == 0 || rl == 0 || ll + rl != c.size { continue }
            s.symbols.merge(left, right)
            let p = s.symbols.prev[left]
            if p >= 0 { addCandidate(Int(p), left, text, &s) }
            let nx = s.symbols.next[left]
            if nx >= 0 { addCandidate(left, Int(nx), text, &s) }
        }
        var i = 0
        while i >= 0 {
            let a = Int(s.symbols.start[i]), len = Int(s.symbols.length[i])
            let id = table.lookup(UnsafeBufferPointer(rebasing: text[a..<(a + len)]))
            if id >= 0 {
                out.append(id)
            } else {
                // Every merged symbol is a token, so only single characters get here.
                for k in a..<(a + len) {
                    let b = byteTokens[Int(text[k])]
                    if b >= 0 { out.append(b) } else if unknown >= 0 { out.append(unknown) }
                }
            }
            i = Int(s.symbols.next[i])
        }
    }

    @inline(__always)
    private func addCandidate(_ left: Int, _ right: Int, _ text: UnsafeBufferPointer<UInt8>, _ s: inout Scratch) {
        let a = Int(s.symbols.start[left])
        let size = s.symbols.length[left] + s.symbols.length[right]
        let id = table.lookup(UnsafeBufferPointer(rebasing: text[a..<(a + Int(size))]))
        if id < 0 { return }
        s.queue.push(MergeCandidate(key: SentencePieceEncoder.priority(scores[Int(id)]) << 32 | UInt64(left),
                                    right: Int32(right), size: size))
    }
}
