// Byte-level JSON string content: escapes, the ban on raw control bytes, and UTF-8 validity, for
// characters that may arrive split across tokens.

/// Where a string's content is between characters.
enum StringScanPhase: Sendable, Hashable {
    /// Between characters.
    case between
    /// After a backslash.
    case escape
    /// Inside `\uXXXX` with this many hex digits still to come.
    case unicodeEscape(digitsLeft: UInt8, value: UInt32)
    /// Inside a multi-byte UTF-8 character with this many continuation bytes to come.
    case utf8(bytesLeft: UInt8, value: UInt32, length: UInt8)
}

/// What one byte of string content did.
enum StringScanStep {
    case rejected
    /// An unescaped `"`: the string ends.
    case closed
    /// A whole character with this scalar value.
    case scalar(UInt32)
    /// Part of a character; the scalar will lie in `possible`.
    case partial(StringScanPhase, possible: ClosedRange<UInt32>)
}

extension StringScanPhase {
    /// Reads one byte of string content.
    func scan(_ byte: UInt8) -> StringScanStep {
        switch self {
        case .between:
            switch byte {
            case UInt8(ascii: "\""): return .closed
            case UInt8(ascii: "\\"): return .partial(.escape, possible: 0...0xFFFF)
            case 0..<0x20: return .rejected
            case 0x20..<0x80: return .scalar(UInt32(byte))
            case 0xC2...0xDF: return StringScanPhase.utf8Partial(bytesLeft: 1, value: UInt32(byte & 0x1F), length: 2)
            case 0xE0...0xEF: return StringScanPhase.utf8Partial(bytesLeft: 2, value: UInt32(byte & 0x0F), length: 3)
            case 0xF0...0xF4: return StringScanPhase.utf8Partial(bytesLeft: 3, value: UInt32(byte & 0x07), length: 4)
            default: return .rejected
            }
        case .escape:
            switch byte {
            case UInt8(ascii: "\""): return .scalar(0x22)
            case UInt8(ascii: "\\"): return .scalar(0x5C)
            case UInt8(ascii: "/"): return .scalar(0x2F)
            case UInt8(ascii: "b"): return .scalar(0x08)
            case UInt8(ascii: "f"): return .scalar(0x0C)
            case UInt8(ascii: "n"): return .scalar(0x0A)
            case UInt8(ascii: "r"): return .scalar(0x0D)
            case UInt8(ascii: "t"): return .scalar(0x09)
            case UInt8(ascii: "u"): return StringScanPhase.escapePartial(digitsLeft: 4, value: 0)
            default: return .rejected
            }
        case let .unicodeEscape(digitsLeft, value):
            guard let digit = hexDigitValue(byte) else { return .rejected }
            return StringScanPhase.escapePartial(digitsLeft: digitsLeft - 1, value: value << 4 | digit)
        case let .utf8(bytesLeft, value, length):
            guard byte & 0xC0 == 0x80 else { return .rejected }
            return StringScanPhase.utf8Partial(bytesLeft: bytesLeft - 1, value: value << 6 | UInt32(byte & 0x3F), length: length)
        }
    }

    /// A multi-byte character so far; rejected when no scalar of that length starts this way
    /// (overlong forms, surrogates and values past U+10FFFF have none).
    private static func utf8Partial(bytesLeft: UInt8, value: UInt32, length: UInt8) -> StringScanStep {
        let valid: ClosedRange<UInt32> = length == 2 ? 0x80...0x7FF : length == 3 ? 0x800...0xFFFF : 0x10000...0x10FFFF
        let shift = UInt32(bytesLeft) * 6
        let low = max(value << shift, valid.lowerBound), high = min(value << shift | ((1 << shift) - 1), valid.upperBound)
        guard let possible = nonSurrogate(low, high) else { return .rejected }
        if bytesLeft == 0 { return .scalar(value) }
        return .partial(.utf8(bytesLeft: bytesLeft, value: value, length: length), possible: possible)
    }

    /// `\uXXXX` so far. Surrogate escapes are refused: characters beyond U+FFFF are written as UTF-8,
    /// which keeps every accepted escape a whole scalar.
    private static func escapePartial(digitsLeft: UInt8, value: UInt32) -> StringScanStep {
        let shift = UInt32(digitsLeft) * 4
        guard let possible = nonSurrogate(value << shift, value << shift | ((1 << shift) - 1)) else { return .rejected }
        if digitsLeft == 0 { return .scalar(value) }
        return .partial(.unicodeEscape(digitsLeft: digitsLeft, value: value), possible: possible)
    }

    /// `low...high` minus surrogates, when something is left (the surrogate block is one range, so a
    /// range that merely straddles it keeps both ends).
    private static func nonSurrogate(_ low: UInt32, _ high: UInt32) -> ClosedRange<UInt32>? {
        guard low <= high else { return nil }
        if low >= 0xD800, high <= 0xDFFF { return nil }
        let start = (0xD800...0xDFFF).contains(low) ? 0xE000 : low
        let end = (0xD800...0xDFFF).contains(high) ? 0xD7FF : high
        return start <= end ? start...end : nil
    }

    /// The cheapest bytes that finish the current character with a scalar `allowed` accepts, and that scalar.
    func finishCharacter(allowed: (ClosedRange<UInt32>) -> UInt32?) -> (bytes: [UInt8], scalar: UInt32)? {
        switch self {
        case .between:
            return nil
        case .escape:
            // A one-letter escape if one fits, else `\u` with four hex digits.
            let letters: [(UInt8, UInt32)] = [(0x22, 0x22), (0x5C, 0x5C), (0x2F, 0x2F), (0x62, 0x08), (0x66, 0x0C), (0x6E, 0x0A), (0x72, 0x0D), (0x74, 0x09)]
            for (letter, scalar) in letters where allowed(scalar...scalar) != nil { return ([letter], scalar) }
            for range: ClosedRange<UInt32> in [0...0xD7FF, 0xE000...0xFFFF] {
                if let scalar = allowed(range) { return ([UInt8(ascii: "u")] + hexDigits(scalar, count: 4), scalar) }
            }
            return nil
        case let .unicodeEscape(digitsLeft, value):
            let shift = UInt32(digitsLeft) * 4
            guard let possible = StringScanPhase.nonSurrogate(value << shift, value << shift | ((1 << shift) - 1)),
                  let scalar = allowed(possible) else { return nil }
            return (hexDigits(scalar, count: Int(digitsLeft)), scalar)
        case let .utf8(bytesLeft, value, length):
            guard case let .partial(_, possible) = StringScanPhase.utf8Partial(bytesLeft: bytesLeft, value: value, length: length),
                  let scalar = allowed(possible) else { return nil }
            return (Array(utf8Bytes(of: scalar).suffix(Int(bytesLeft))), scalar)
        }
    }
}

private func hexDigitValue(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
    default: return nil
    }
}

/// The last `count` hex digits of `value`.
private func hexDigits(_ value: UInt32, count: Int) -> [UInt8] {
    let digits = Array("0123456789abcdef".utf8)
    return (0..<count).reversed().map { digits[Int((value >> (UInt32($0) * 4)) & 0xF)] }
}
