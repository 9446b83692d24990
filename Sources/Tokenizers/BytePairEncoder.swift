// Byte-level BPE (tokenizer.ggml.model = "gpt2"), llama.cpp's `llm_tokenizer_bpe_session`:
// pre-tokenize, map each word's bytes through the GPT-2 byte alphabet, then repeatedly merge
// the adjacent pair with the lowest merge rank (leftmost on ties).
// gemma4's BPE is the same over raw UTF-8 characters (spaces already U+2581), with `<0xNN>`
// byte tokens for what ends up outside the vocabulary.
//
// Merges are keyed by piece ids instead of strings: every token text, merge side and merge
// result gets an id (token ids first, extra ids after), so a merge is one integer-keyed lookup.
import GGUF

struct BytePairEncoder: Sendable {
    let vocabularyCount: Int
    let preTokenizer: PreTokenizer
    /// Whole words that are tokens skip merging (llama3, tekken, ... `ignore_merges`).
    let ignoreMerges: Bool
    /// Words made only of line feeds that are tokens skip merging (gemma4).
    let wholeLineFeedRuns: Bool
    /// Piece id of each byte's GPT-2 character, or -1.
    private let bytePiece: [Int32]
    /// Raw-UTF-8 mode: the `<0xNN>` token of each byte, or -1.
    private let byteFallback: [Int32]
    /// (left piece << 32 | right piece) -> (rank << 32 | result piece).
    private let merges: PairTable
    /// Token id of each single-byte string, or -1 (llama.cpp's last-resort fallback).
    private let singleByteToken: [Int32]
    private let table: ByteTable

    init(vocabulary v: Vocabulary, file: GGUFFile, preTokenizer: PreTokenizer, ignoreMerges: Bool,
         wholeLineFeedRuns: Bool = false) throws(TokenizerError) {
        vocabularyCount = v.count
        self.preTokenizer = preTokenizer
        self.ignoreMerges = ignoreMerges
        self.wholeLineFeedRuns = wholeLineFeedRuns
        guard case let .array(.string(mergeList))? = file.metadata["tokenizer.ggml.merges"] else {
            throw .missingMetadata("tokenizer.ggml.merges")
        }
        var pieces = v.table
        var nextExtra = Int32(v.count)
        func pieceID(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
            let id = pieces.lookup(bytes)
            if id >= 0 { return id }
            pieces.insert(bytes, id: nextExtra)
            nextExtra += 1
            return nextExtra - 1
        }
        var merges = PairTable(capacity: mergeList.count)
        for (rank, var m) in mergeList.enumerated() {
            m.withUTF8 { u in
                // Split at the first space after the first byte, as llama.cpp does.
                guard u.count > 1, let space = u[1...].firstIndex(of: 0x20) else { return }
                let left = pieceID(UnsafeBufferPointer(rebasing: u[0..<space]))
                let right = pieceID(UnsafeBufferPointer(rebasing: u[(space + 1)...]))
                var joined = Array(u[0..<space])
                joined.append(contentsOf: u[(space + 1)...])
                let result = joined.withUnsafeBufferPointer { pieceID($0) }
                let key = UInt64(UInt32(bitPattern: left)) << 32 | UInt64(UInt32(bitPattern: right))
                // The first occurrence of a pair keeps its rank (std::map::emplace).
                merges.insertIfAbsent(key, UInt64(rank) << 32 | UInt64(UInt32(bitPattern: result)))
            }
        }
        self.merges = merges
        self.table = pieces
        bytePiece = ByteLevel.byteToUTF8.map { pieces.lookup($0) }
        singleByteToken = (0..<256).map { b in v.table.lookup([UInt8(b)]) }
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        byteFallback = (0..<256).map { b in v.table.lookup([0x3C, 0x30, 0x78, hex[b >> 4], hex[b & 15], 0x3E]) }
    }

    /// Encodes one raw-text fragment.
    func encode(_ text: UnsafeBufferPointer<UInt8>, into out: inout [Int32]) {
        let (cps, offsets) = UTF8Scan.codepoints(text)
        let segments = cps.withUnsafeBufferPointer { preTokenizer.split($0) }
        var scratch = Scratch()
        // Words repeat a lot in real text: remember each distinct word's ids for this call.
        // (Per call, so the tokenizer stays immutable and needs no locks.)
        var cache = ByteTable(capacity: 1024)
        var cached: [Int32] = []
        var cachedStarts: [Int] = [0]
        var cp = 0
        for length in segments {
            let a = offsets[cp], b = offsets[cp + length]
            cp += length
            let word = UnsafeBufferPointer(rebasing: text[a..<b])
            if word.count > 64 {  // long words are rare and would bloat the cache
                encodeWord(word, &scratch, &out)
                continue
            }
            let hit = cache.lookup(word)
            if hit >= 0 {
                out.append(contentsOf: cached[cachedStarts[Int(hit)]..<cachedStarts[Int(hit) + 1]])
                continue
            }
            let before = out.count
            encodeWord(word, &scratch, &out)
            cached.append(contentsOf: out[before...])
            cachedStarts.append(cached.count)
            cache.insert(word, id: Int32(cachedStarts.count - 2))
        }
    }

    struct Scratch {
        var symbols = SymbolList()
        var queue = MergeQueue()
        var encoded: [UInt8] = []
    }

    private func encodeWord(_ word: UnsafeBufferPointer<UInt8>, _ s: inout Scratch, _ out: inout [Int32]) {
        if word.isEmpty { return }
        guard preTokenizer.byteLevel else { return encodeRawWord(word, &s, &out) }
        if ignoreMerges {
            s.encoded.removeAll(keepingCapacity: true)
            for b in word { s.encoded.append(contentsOf: ByteLevel.byteToUTF8[Int(b)]) }
            let id = s.encoded.withUnsafeBufferPointer { table.lookup($0) }
            if id >= 0 && Int(id) < vocabularyCount {
                out.append(id)
                return
            }
        }
        // One symbol per input byte (each becomes one GPT-2 character).
        s.symbols.removeAll()
        for (i, b) in word.enumerated() { s.symbols.append(start: i, length: 1, piece: bytePiece[Int(b)]) }
        s.symbols.close()
        mergeAll(&s)
        emitSymbols(word, s, &out)
    }

    /// gemma4's word encoding: symbols are UTF-8 characters looked up as they are; a final
    /// symbol that is not a token is spelled with `<0xNN>` byte tokens.
    private func encodeRawWord(_ word: UnsafeBufferPointer<UInt8>, _ s: inout Scratch, _ out: inout [Int32]) {
        if ignoreMerges || (wholeLineFeedRuns && !word.contains { $0 != 0x0A }) {
            let id = table.lookup(word)
            if id >= 0 && Int(id) < vocabularyCount {
                out.append(id)
                return
            }
        }
        s.symbols.removeAll()
        var k = 0
        while k < word.count {
            let n = min(UTF8Scan.sequenceLength(word[k]), word.count - k)
            s.symbols.append(start: k, length: n, piece: table.lookup(UnsafeBufferPointer(rebasing: word[k..<(k + n)])))
            k += n
        }
        s.symbols.close()
        mergeAll(&s)
        emitSymbols(word, s, &out)
    }

    /// The merged symbols' token ids. A symbol that is not a token is spelled byte by byte:
    /// byte-level, llama.cpp looks up each *encoded* byte's character on its own; raw UTF-8, each
    /// byte's `<0xNN>` token.
    private func emitSymbols(_ word: UnsafeBufferPointer<UInt8>, _ s: Scratch, _ out: inout [Int32]) {
        var i = 0
        while i >= 0 {
            let piece = s.symbols.piece[i]
            if piece >= 0 && Int(piece) < vocabularyCount {
                out.append(piece)
            } else {
                let a = Int(s.symbols.start[i]), len = Int(s.symbols.length[i])
                for b in word[a..<(a + len)] {
                    if !preTokenizer.byteLevel {
                        if byteFallback[Int(b)] >= 0 { out.append(byteFallback[Int(b)]) }
                        continue
                    }
                    for e in ByteLevel.byteToUTF8[Int(b)] where singleByteToken[Int(e)] >= 0 {
                        out.append(singleByteToken[Int(e)])
                    }
                }
            }
            i = Int(s.symbols.next[i])
        }
    }

    /// Applies merges, lowest rank first (leftmost on ties), until none applies.
    private func mergeAll(_ s: inout Scratch) {
        s.queue.removeAll()
        for i in 1..<max(1, s.symbols.count) { addCandidate(i - 1, i, &s) }
        while !s.queue.isEmpty {
            let c = s.queue.pop()
            let left = Int(c.key & 0xFFFF_FFFF), right = Int(c.right)
            let ll = s.symbols.length[left], rl = s.symbols.length[right]
            if ll == 0 || rl == 0 || ll + rl != c.size { continue }
            s.symbols.piece[left] = Int32(truncatingIfNeeded: merges.find(pairKey(s.symbols.piece[left], s.symbols.piece[right]))!)
            s.symbols.merge(left, right)
            let p = s.symbols.prev[left]
            if p >= 0 { addCandidate(Int(p), left, &s) }
            let nx = s.symbols.next[left]
            if nx >= 0 { addCandidate(left, Int(nx), &s) }
        }
    }

    @inline(__always)
    private func pairKey(_ l: Int32, _ r: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: l)) << 32 | UInt64(UInt32(bitPattern: r))
    }

    @inline(__always)
    private func addCandidate(_ left: Int, _ right: Int, _ s: inout Scratch) {
        let l = s.symbols.piece[left], r = s.symbols.piece[right]
        if l < 0 || r < 0 { return }
        guard let m = merges.find(pairKey(l, r)) else { return }
        let rank = m >> 32
        s.queue.push(MergeCandidate(key: rank << 32 | UInt64(left), right: Int32(right),
                                    size: s.symbols.length[left] + s.symbols.length[right]))
    }
}
