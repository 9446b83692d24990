// BERT's WordPiece (tokenizer.ggml.model = "bert"), as llama.cpp's `llm_tokenizer_wpm_session`:
//
// 1. Normalize and split into words: whitespace ends a word; NUL, U+FFFD and \p{C} codepoints
//    vanish; with `stripAccents` each codepoint is first replaced by the first codepoint of its
//    NFD ("é" -> "e") and \p{M} marks vanish; with `lowercase` it is lowercased (simple mapping);
//    punctuation, ASCII symbols and CJK ideographs are words of their own.
// 2. Each word gets a leading U+2581 (GGUF BERT vocabularies spell word-initial pieces "▁word"
//    and continuation pieces without the "##"), then greedy longest match from the left. A word
//    with a position no token starts at becomes one [UNK].

struct WordPieceEncoder: Sendable {
    private let table: ByteTable
    private let unknown: Int32
    private let maxTokenLength: Int
    private let lowercase: Bool
    private let stripAccents: Bool

    init(vocabulary v: Vocabulary) {
        table = v.table
        unknown = v.unk
        maxTokenLength = v.maxTokenLength
        lowercase = v.lowercase
        stripAccents = v.stripAccents
    }

    /// Encodes one raw-text fragment (valid UTF-8).
    func encode(_ text: UnsafeBufferPointer<UInt8>, into out: inout [Int32]) {
        let (cps, _) = UTF8Scan.codepoints(text)
        var word: [UInt8] = [0xE2, 0x96, 0x81]  // U+2581, then the word's UTF-8
        for var cp in cps {
            if stripAccents { cp = NFDFirstScalar.map(cp) }
            let flags = CodepointFlags.of(cp)
            if flags.isWhitespace {
                finishWord(&word, &out)
                continue
            }
            if cp == 0 || cp == 0xFFFD || flags.contains(.control) { continue }
            if stripAccents && flags.isMark { continue }
            let stands = flags.isPunctuation || (cp < 0x7F && flags.isSymbol) || Self.isCJKIdeograph(cp)
            if stands { finishWord(&word, &out) }
            ByteLevel.appendUTF8(lowercase ? Self.lowercased(cp) : cp, to: &word)
            if stands { finishWord(&word, &out) }
        }
        finishWord(&word, &out)
    }

    /// Tokenizes the pending word (if any) and resets the buffer to the bare U+2581.
    private func finishWord(_ word: inout [UInt8], _ out: inout [Int32]) {
        guard word.count > 3 else { return }
        let before = out.count
        word.withUnsafeBufferPointer { w in
            var i = 0
            while i < w.count {
                var j = min(w.count, i + maxTokenLength)
                var id: Int32 = -1
                while j > i {
                    id = table.lookup(UnsafeBufferPointer(rebasing: w[i..<j]))
                    if id >= 0 { break }
                    j -= 1
                }
                if id < 0 {  // nothing starts here: the whole word is unknown
                    out.removeSubrange(before...)
                    break
                }
                out.append(id)
                i = j
            }
        }
        // llama.cpp appends [UNK] even when the vocabulary has none (-1); we drop it instead.
        if out.count == before && unknown >= 0 { out.append(unknown) }
        word.removeSubrange(3...)
    }

    /// The CJK ideograph blocks BERT's tokenizer isolates (CJK Unified Ideographs and
    /// extensions A-E, compatibility ideographs and their supplement).
    static func isCJKIdeograph(_ cp: UInt32) -> Bool {
        (0x4E00...0x9FFF).contains(cp) || (0x3400...0x4DBF).contains(cp) || (0x20000...0x2A6DF).contains(cp)
            || (0x2A700...0x2B73F).contains(cp) || (0x2B740...0x2B81F).contains(cp)
            // HF's reference code starts this block at 0x2B920 instead of 0x2B820; llama.cpp follows it.
            || (0x2B920...0x2CEAF).contains(cp)
            || (0xF900...0xFAFF).contains(cp) || (0x2F800...0x2FA1F).contains(cp)
    }

    /// Unicode's simple lowercase mapping (one codepoint to one codepoint), for codepoints
    /// assigned by llama.cpp's Unicode version.
    static func lowercased(_ cp: UInt32) -> UInt32 {
        if cp < 0x80 { return (0x41...0x5A).contains(cp) ? cp + 32 : cp }
        guard let scalar = Unicode.Scalar(cp), CodepointFlags.of(cp) != .undefined else { return cp }
        // Swift gives the full mapping; it differs from the simple one only where it has more
        // than one codepoint, and among lowercase mappings that is U+0130 alone (-> "i̇").
        if cp == 0x130 { return 0x69 }
        let mapped = scalar.properties.lowercaseMapping.unicodeScalars
        return mapped.count == 1 ? mapped.first!.value : cp
    }
}
