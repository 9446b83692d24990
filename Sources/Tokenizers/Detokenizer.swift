// ids -> bytes, as llama.cpp's `token_to_piece` and `detokenize` (without remove_special).

enum Detokenizer {
    /// The bytes of one token. Control and unknown tokens render only with `renderSpecial`;
    /// user-defined tokens always render as their text; byte tokens `<0xNN>` are one byte.
    static func pieceBytes(_ v: Vocabulary, _ id: Int32, renderSpecial: Bool) -> [UInt8] {
        guard id >= 0 && Int(id) < v.count else { return [] }
        let attr = v.attributes[Int(id)]
        if attr.contains(.control) || attr.contains(.unknown) {
            return renderSpecial ? v.text(id) : []
        }
        if attr.contains(.userDefined) { return v.text(id) }
        if attr.contains(.normal) {
            // SentencePiece, WordPiece and gemma4's BPE spell spaces as U+2581.
            if v.kind != .bytePairEncoding || v.escapeWhitespace {
                return unescapeWhitespace(v.text(id))
            }
            return decodeByteLevel(v.text(id))
        }
        if attr.contains(.byte) {
            let t = v.text(id)
            guard t.count >= 5, let hi = hexValue(t[3]), let lo = hexValue(t[4]) else { return [] }
            return [hi << 4 | lo]
        }
        return []
    }

    /// Concatenated pieces, then llama.cpp's leading-space strip and space clean-up.
    static func decode(_ v: Vocabulary, _ ids: [Int32], renderSpecial: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(ids.count * 4)
        var removeSpace = v.addSpacePrefix
        for id in ids {
            var piece = pieceBytes(v, id, renderSpecial: renderSpecial)
            if removeSpace, piece.first == 0x20 { piece.removeFirst() }
            removeSpace = false
            out.append(contentsOf: piece)
        }
        if v.cleanSpaces { out = cleanSpaces(out) }
        return out
    }

    /// U+2581 -> ' '.
    static func unescapeWhitespace(_ t: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(t.count)
        var i = 0
        while i < t.count {
            if i + 2 < t.count && t[i] == 0xE2 && t[i + 1] == 0x96 && t[i + 2] == 0x81 {
                out.append(0x20)
                i += 3
            } else {
                out.append(t[i])
                i += 1
            }
        }
        return out
    }

    /// GPT-2 characters -> bytes. A character outside the byte alphabet becomes
    /// `[UNK_BYTE_0x<hex of its UTF-8><token text>]`, exactly as llama.cpp writes it.
    static func decodeByteLevel(_ t: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(t.count)
        let (cps, offsets) = t.withUnsafeBufferPointer { UTF8Scan.codepoints($0) }
        for (k, cp) in cps.enumerated() {
            if cp < 0x144, ByteLevel.codepointToByte[Int(cp)] >= 0 {
                out.append(UInt8(ByteLevel.codepointToByte[Int(cp)]))
            } else {
                out.append(contentsOf: Array("[UNK_BYTE_0x".utf8))
                for b in t[offsets[k]..<offsets[k + 1]] {
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    out.append(hex[Int(b >> 4)])
                    out.append(hex[Int(b & 15)])
                }
                out.append(contentsOf: t)
                out.append(0x5D)
            }
        }
        return out
    }

    /// llama.cpp's three clean-up passes: drop the space before `?!.,`, turn " ' " into "'",
    /// and drop the space before 's 'm 're 've.
    static func cleanSpaces(_ input: [UInt8]) -> [UInt8] {
        var text = input
        // Pass 1.
        var total = text.isEmpty ? 0 : 1
        if text.count > 1 {
            for i in 1..<text.count {
                let x = text[i]
                if text[i - 1] == 0x20 && (x == 0x3F || x == 0x21 || x == 0x2E || x == 0x2C) { total -= 1 }
                text[total] = x
                total += 1
            }
        }
        text.removeSubrange(total...)
        // Pass 2.
        let total2 = text.count
        total = total2 == 0 ? 0 : 1
        var i = 1
        while i < total2 {
            let x = text[i]
            if x == 0x27 && i + 1 < total2 && text[i - 1] == 0x20 && text[i + 1] == 0x20 {
                total -= 1
                i += 1
                text[i] = 0
            }
            text[total] = x
            total += 1
            i += 1
        }
        text.removeSubrange(total...)
        // Pass 3.
        let total3 = text.count
        total = total3 == 0 ? 0 : 1
        if total3 > 1 {
            for i in 1..<total3 {
                let x = text[i]
                if text[i - 1] == 0x20 && x == 0x27 && i + 1 < total3 {
                    let x1 = text[i + 1]
                    if x1 == 0x73 || x1 == 0x6D {
                        total -= 1
                    } else if i + 2 < total3 {
                        let x2 = text[i + 2]
                        if (x1 == 0x72 && x2 == 0x65) || (x1 == 0x76 && x2 == 0x65) { total -= 1 }
                    }
                }
                text[total] = x
                total += 1
            }
        }
        text.removeSubrange(total...)
        return text
    }

    @inline(__always)
    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }
}
