// GPT-2's byte <-> unicode mapping: every byte gets a printable codepoint so that byte-level
// BPE vocabularies can be stored as text. Printable Latin-1 bytes map to themselves; the other
// 68 bytes map to U+0100, U+0101, ... in byte order.

enum ByteLevel {
    /// Codepoint for each byte.
    static let byteToCodepoint: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 256)
        var isDirect = [Bool](repeating: false, count: 256)
        for b in 0x21...0x7E { isDirect[b] = true }
        for b in 0xA1...0xAC { isDirect[b] = true }
        for b in 0xAE...0xFF { isDirect[b] = true }
        var next: UInt32 = 256
        for b in 0..<256 {
            if isDirect[b] {
                table[b] = UInt32(b)
            } else {
                table[b] = next
                next += 1
            }
        }
        return table
    }()

    /// UTF-8 of each byte's codepoint (1 or 2 bytes).
    static let byteToUTF8: [[UInt8]] = byteToCodepoint.map { utf8(of: $0) }

    /// Codepoint -> byte, for the 256 mapped codepoints (all below U+0144); -1 elsewhere.
    static let codepointToByte: [Int16] = {
        var table = [Int16](repeating: -1, count: 0x144)
        for (b, cp) in byteToCodepoint.enumerated() { table[Int(cp)] = Int16(b) }
        return table
    }()

    static func utf8(of cp: UInt32) -> [UInt8] {
        var out: [UInt8] = []
        appendUTF8(cp, to: &out)
        return out
    }

    @inline(__always)
    static func appendUTF8(_ cp: UInt32, to out: inout [UInt8]) {
        if cp < 0x80 {
            out.append(UInt8(cp))
        } else if cp < 0x800 {
            out.append(UInt8(0xC0 | (cp >> 6)))
            out.append(UInt8(0x80 | (cp & 0x3F)))
        } else if cp < 0x10000 {
            out.append(UInt8(0xE0 | (cp >> 12)))
            out.append(UInt8(0x80 | ((cp >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (cp & 0x3F)))
        } else {
            out.append(UInt8(0xF0 | (cp >> 18)))
            out.append(UInt8(0x80 | ((cp >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((cp >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (cp & 0x3F)))
        }
    }
}

/// UTF-8 helpers shared by the encoders.
enum UTF8Scan {
    /// llama.cpp's `unicode_len_utf8`: sequence length from the lead byte's high nibble.
    @inline(__always)
    static func sequenceLength(_ lead: UInt8) -> Int {
        switch lead >> 4 {
        case 0xC, 0xD: return 2
        case 0xE: return 3
        case 0xF: return 4
        default: return 1
        }
    }

    /// Decodes valid UTF-8 into codepoints and the byte offset of each (plus a final end offset).
    static func codepoints(_ text: UnsafeBufferPointer<UInt8>) -> (cps: [UInt32], offsets: [Int]) {
        var cps: [UInt32] = []
        var offsets: [Int] = []
        cps.reserveCapacity(text.count)
        offsets.reserveCapacity(text.count + 1)
        var i = 0
        let n = text.count
        while i < n {
            offsets.append(i)
            let b0 = UInt32(text[i])
            let len = min(sequenceLength(text[i]), n - i)
            var cp: UInt32
            switch len {
            case 2: cp = (b0 & 0x1F) << 6 | UInt32(text[i + 1] & 0x3F)
            case 3: cp = (b0 & 0x0F) << 12 | UInt32(text[i + 1] & 0x3F) << 6 | UInt32(text[i + 2] & 0x3F)
            case 4:
                cp = (b0 & 0x07) << 18 | UInt32(text[i + 1] & 0x3F) << 12 | UInt32(text[i + 2] & 0x3F) << 6
                    | UInt32(text[i + 3] & 0x3F)
            default: cp = b0
            }
            cps.append(cp)
            i += len
        }
        offsets.append(n)
        return (cps, offsets)
    }
}
