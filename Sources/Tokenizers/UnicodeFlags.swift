// Codepoint classes for the pre-tokenizers: llama.cpp's `unicode_cpt_flags`, derived from the
// Unicode general category (\p{L}, \p{N}, \p{P}, \p{S}, \p{M}, \p{Z}, \p{C}, unassigned) plus
// the White_Space property for \s. Swift's own Unicode tables supply both, for all of Unicode.
//
// llama.cpp's tables (unicode-data.cpp) are Unicode 15.1; Swift's are newer. Checked over all
// 0x110000 codepoints: the two agree everywhere except on codepoints first assigned after 15.1,
// which llama.cpp sees as unassigned. `pinnedVersion` reproduces that, so a newly assigned
// letter does not split words differently from llama.cpp.

/// The category bits of one codepoint. Exactly one category bit is set for an assigned
/// codepoint (or `undefined` for an unassigned one); `whitespace` is independent.
struct CodepointFlags: OptionSet, Sendable {
    let rawValue: UInt16

    static let undefined   = CodepointFlags(rawValue: 0x0001)
    static let number      = CodepointFlags(rawValue: 0x0002)
    static let letter      = CodepointFlags(rawValue: 0x0004)
    static let separator   = CodepointFlags(rawValue: 0x0008)
    static let mark        = CodepointFlags(rawValue: 0x0010)
    static let punctuation = CodepointFlags(rawValue: 0x0020)
    static let symbol      = CodepointFlags(rawValue: 0x0040)
    static let control     = CodepointFlags(rawValue: 0x0080)
    static let whitespace  = CodepointFlags(rawValue: 0x0100)

    /// "No flags": what llama.cpp's matchers see past the end of a segment.
    static let outOfRange = CodepointFlags([])

    @inline(__always) var isLetter: Bool { rawValue & 0x0004 != 0 }
    @inline(__always) var isNumber: Bool { rawValue & 0x0002 != 0 }
    @inline(__always) var isWhitespace: Bool { rawValue & 0x0100 != 0 }
    @inline(__always) var isMark: Bool { rawValue & 0x0010 != 0 }
    @inline(__always) var isPunctuation: Bool { rawValue & 0x0020 != 0 }
    @inline(__always) var isSymbol: Bool { rawValue & 0x0040 != 0 }

    /// Flags of a codepoint: a table lookup in the BMP, the Unicode properties above it.
    @inline(__always)
    static func of(_ cp: UInt32) -> CodepointFlags {
        if cp < 0x10000 { return CodepointFlags(rawValue: bmpTable[Int(cp)]) }
        return compute(cp)
    }

    /// Derives the flags from Swift's Unicode data.
    static func compute(_ cp: UInt32) -> CodepointFlags {
        // Surrogates never reach here from valid UTF-8, but llama.cpp classes them as control.
        guard let scalar = Unicode.Scalar(cp) else {
            return (0xD800...0xDFFF).contains(cp) ? .control : .undefined
        }
        var flags: CodepointFlags
        if let age = scalar.properties.age,
           age.major > pinnedVersion.major || (age.major == pinnedVersion.major && age.minor > pinnedVersion.minor) {
            return .undefined  // White_Space has had no additions since 15.1 either.
        }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter:
            flags = .letter
        case .nonspacingMark, .spacingMark, .enclosingMark:
            flags = .mark
        case .decimalNumber, .letterNumber, .otherNumber:
            flags = .number
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
             .initialPunctuation, .finalPunctuation, .otherPunctuation:
            flags = .punctuation
        case .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            flags = .symbol
        case .spaceSeparator, .lineSeparator, .paragraphSeparator:
            flags = .separator
        case .control, .format, .surrogate, .privateUse:
            flags = .control
        case .unassigned:
            flags = .undefined
        @unknown default:
            flags = .undefined
        }
        if scalar.properties.isWhitespace { flags.insert(.whitespace) }
        return flags
    }

    /// The Unicode version of llama.cpp's category tables.
    static let pinnedVersion = (major: 15, minor: 1)

    /// Precomputed flags for U+0000...U+FFFF (128 KB), built once on first use.
    static let bmpTable: [UInt16] = {
        var table = [UInt16](repeating: 0, count: 0x10000)
        for cp in 0..<0x10000 { table[cp] = compute(UInt32(cp)).rawValue }
        return table
    }()
}
