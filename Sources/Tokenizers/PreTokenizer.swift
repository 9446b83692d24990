// Pre-tokenizer splits for byte-level BPE, chosen by `tokenizer.ggml.pre`.
//
// llama.cpp runs a list of regexes in sequence; each one splits every current segment further
// (matches and the gaps between them both become segments). The common patterns get
// hand-written matchers there (gpt2, llama3, qwen2, qwen35) and the simple character-class ones
// go through std::regex; both are reproduced here as small state machines over codepoints, with
// no regex engine. Segments are lengths in codepoints, like llama.cpp's offsets.

/// One regex stage of a pre-tokenizer.
enum SplitStage: Sendable, Equatable {
    /// `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
    case gpt2
    /// `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,maxDigits}|
    ///  ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+` (llama3: 3 digits, qwen2: 1);
    /// with `marks`, letters runs also take \p{M} (qwen35).
    case llama(maxDigits: Int, marks: Bool)
    /// `\p{N}`: every number codepoint on its own.
    case eachNumber
    /// `\p{N}+`
    case numberRuns
    /// `[\p{P}\$\+<=>\^~\|]+` (plus the backtick for falcon).
    case punctuationRuns(backtick: Bool)
    /// `[0-9][0-9][0-9]`
    case asciiDigitTriples
    /// `[\r\n]`: every line-break character on its own.
    case eachLineBreak
    /// `\s?X+`: a run of one class with at most one whitespace before it.
    case spacedRun(RunClass)
    /// `\s+$`: the whitespace that ends a segment.
    case trailingWhitespace
    /// `[一-龥ࠀ-一가-퟿]+`: runs of U+4E00…U+9FA5, U+0800…U+4E00 and U+AC00…U+D7FF.
    case cjkRuns
    /// `[^\n]+|[\n]+`: runs of line feeds and the text between them.
    case lineFeedRuns
    /// Mistral's tekken: `[^\r\n\p{L}\p{N}]?U*L+|[^\r\n\p{L}\p{N}]?U+L*|\p{N}|
    ///  ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+` with U a letter other than a-z and
    /// L a letter other than A-Z (so letters outside ASCII are both).
    case tekken
}

/// The character classes of `spacedRun` stages.
enum RunClass: Sendable, Equatable {
    /// `\p{L}`
    case letters
    /// `\p{P}`
    case punctuation
    /// deepseek-llm's explicit letter list: the cased letters (Lu, Ll, Lt) of Latin, Greek,
    /// Cyrillic, Armenian, Georgian, Cherokee, Glagolitic, Coptic, Deseret, … as 87 ranges.
    case casedLetters
    /// deepseek-llm's `[!-/:-~！-／：-～‘-‟　-。]`: ASCII punctuation and letters, their fullwidth
    /// forms, curly quotes and the CJK space and full stops.
    case asciiAndFullwidthMarks

    func contains(_ cp: UInt32, _ flags: CodepointFlags) -> Bool {
        switch self {
        case .letters: return flags.isLetter
        case .punctuation: return flags.isPunctuation
        case .casedLetters: return Self.cased.contains { $0.contains(cp) }
        case .asciiAndFullwidthMarks:
            return [0x21...0x2F, 0x3A...0x7E, 0xFF01...0xFF0F, 0xFF1A...0xFF5E, 0x2018...0x201F, 0x3000...0x3002].contains { $0.contains(cp) }
        }
    }

    private static let cased: [ClosedRange<UInt32>] = [
        0x41...0x5A, 0x61...0x7A, 0xB5...0xB5, 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x1BA, 0x1BC...0x1BF, 0x1C4...0x293,
        0x295...0x2AF, 0x370...0x373, 0x376...0x377, 0x37B...0x37D, 0x37F...0x37F, 0x386...0x386, 0x388...0x38A,
        0x38C...0x38C, 0x38E...0x3A1, 0x3A3...0x3F5, 0x3F7...0x481, 0x48A...0x52F, 0x531...0x556, 0x10A0...0x10C5,
        0x13A0...0x13F5, 0x13F8...0x13FD, 0x1C90...0x1CBA, 0x1CBD...0x1CBF, 0x1D00...0x1D2B, 0x1D6B...0x1D77,
        0x1D79...0x1D9A, 0x1E00...0x1F15, 0x1F18...0x1F1D, 0x1F20...0x1F45, 0x1F48...0x1F4D, 0x1F50...0x1F57,
        0x1F59...0x1F59, 0x1F5B...0x1F5B, 0x1F5D...0x1F5D, 0x1F5F...0x1F7D, 0x1F80...0x1FB4, 0x1FB6...0x1FBC,
        0x1FBE...0x1FBE, 0x1FC2...0x1FC4, 0x1FC6...0x1FCC, 0x1FD0...0x1FD3, 0x1FD6...0x1FDB, 0x1FE0...0x1FEC,
        0x1FF2...0x1FF4, 0x1FF6...0x1FFC, 0x2102...0x2102, 0x2107...0x2107, 0x210A...0x2113, 0x2115...0x2115,
        0x2119...0x211D, 0x2124...0x2124, 0x2126...0x2126, 0x2128...0x2128, 0x212A...0x212D, 0x212F...0x2134,
        0x2139...0x2139, 0x213C...0x213F, 0x2145...0x2149, 0x214E...0x214E, 0x2183...0x2184, 0x2C00...0x2C7B,
        0x2C7E...0x2CE4, 0x2CEB...0x2CEE, 0x2CF2...0x2CF3, 0xA640...0xA66D, 0xA680...0xA69B, 0xA722...0xA76F,
        0xA771...0xA787, 0xA78B...0xA78E, 0xAB70...0xABBF, 0xFB00...0xFB06, 0xFB13...0xFB17, 0xFF21...0xFF3A,
        0xFF41...0xFF5A, 0x10400...0x1044F, 0x104B0...0x104D3, 0x104D8...0x104FB, 0x10C80...0x10CB2,
        0x10CC0...0x10CF2, 0x118A0...0x118DF, 0x1E900...0x1E943,
    ]
}

/// The split rules of one `tokenizer.ggml.pre` value.
struct PreTokenizer: Sendable {
    let stages: [SplitStage]
    /// Words are spelled in the GPT-2 byte alphabet (llama.cpp's `byte_encode`); false for the
    /// SentencePiece-style BPE of gemma4, which merges raw UTF-8 characters.
    var byteLevel = true

    /// The stages llama.cpp uses for a pre-tokenizer name, or nil when unsupported.
    init?(name: String) {
        switch name {
        case "default":
            stages = [.punctuationRuns(backtick: false), .gpt2, .numberRuns, .asciiDigitTriples]
        case "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2",
             "jina-v5-nano", "dbrx", "smaug-bpe", "chatglm-bpe", "glm4", "glm5":
            stages = [.llama(maxDigits: 3, marks: false)]
        case "qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "stablelm2", "hunyuan", "solar-open",
             "megrez", "grok-2":
            stages = [.llama(maxDigits: 1, marks: false)]
        case "qwen35":
            stages = [.llama(maxDigits: 1, marks: true)]
        case "deepseek-coder":
            stages = [.eachLineBreak, .spacedRun(.letters), .spacedRun(.punctuation), .cjkRuns, .eachNumber]
        case "deepseek-llm":
            stages = [.eachLineBreak, .spacedRun(.casedLetters), .spacedRun(.asciiAndFullwidthMarks), .trailingWhitespace,
                      .cjkRuns, .numberRuns]
        case "falcon":
            stages = [.punctuationRuns(backtick: true), .gpt2, .asciiDigitTriples]
        case "starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b", "mellum2":
            stages = [.eachNumber, .gpt2]
        case "gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0",
             "mellum", "modern-bert", "jina-v1-en", "jina-v2-code", "roberta-bpe", "exaone4", "mpt",
             "olmo", "jais", "trillion", "granite-docling":
            stages = [.gpt2]
        case "tekken":
            stages = [.tekken]
        case "gemma4", "granite-embed-multi-311m", "sarvam-moe":
            stages = [.lineFeedRuns]
            byteLevel = false
        default:
            return nil
        }
    }

    /// Splits codepoints into segment lengths.
    func split(_ cps: UnsafeBufferPointer<UInt32>) -> [Int] {
        // Flags once per codepoint; every stage reads them.
        let flags = cps.map { CodepointFlags.of($0).rawValue }
        var segments = cps.isEmpty ? [] : [cps.count]
        flags.withUnsafeBufferPointer { f in
            for stage in stages {
                segments = PreTokenizer.apply(stage, cps, f, segments)
            }
        }
        return segments
    }

    static func apply(_ stage: SplitStage, _ cps: UnsafeBufferPointer<UInt32>,
                      _ flags: UnsafeBufferPointer<UInt16>, _ segments: [Int]) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(segments.count * 2)
        var start = 0
        for length in segments {
            let end = start + length
            var scanner = SegmentScanner(cps: cps, flags: flags, start: start, end: end)
            switch stage {
            case .gpt2: scanner.gpt2(&out)
            case let .llama(maxDigits, marks): scanner.llama(&out, maxDigits: maxDigits, marks: marks)
            case .eachNumber:
                scanner.classMatches(&out) { f, _ in f.isNumber ? 1 : 0 }
            case .numberRuns:
                scanner.classMatches(&out) { f, _ in f.isNumber ? Int.max : 0 }
            case let .punctuationRuns(backtick):
                scanner.classMatches(&out) { f, cp in
                    let extra = cp == 0x24 || cp == 0x2B || cp == 0x3C || cp == 0x3D || cp == 0x3E
                        || cp == 0x5E || cp == 0x7E || cp == 0x7C || (backtick && cp == 0x60)
                    return f.isPunctuation || extra ? Int.max : 0
                }
            case .asciiDigitTriples:
                scanner.asciiDigitTriples(&out)
            case .eachLineBreak:
                scanner.classMatches(&out) { _, cp in cp == 0x0A || cp == 0x0D ? 1 : 0 }
            case .tekken:
                scanner.tekken(&out)
            case .lineFeedRuns:
                // Matches are the line-feed runs; the gaps between them are the other runs.
                scanner.classMatches(&out) { _, cp in cp == 0x0A ? Int.max : 0 }
            case let .spacedRun(runClass):
                scanner.spacedRuns(&out) { runClass.contains($0, $1) }
            case .trailingWhitespace:
                scanner.trailingWhitespace(&out)
            case .cjkRuns:
                scanner.classMatches(&out) { _, cp in
                    (0x0800...0x9FA5).contains(cp) || (0xAC00...0xD7FF).contains(cp) ? Int.max : 0
                }
            }
            start = end
        }
        return out
    }
}

/// Walks one segment `start..<end`, appending sub-segment lengths. Positions outside the
/// segment read as "no codepoint" with empty flags, exactly like llama.cpp's `_get_cpt/_get_flags`.
struct SegmentScanner {
    let cps: UnsafeBufferPointer<UInt32>
    let flags: UnsafeBufferPointer<UInt16>
    let start: Int
    let end: Int
    var previousEnd: Int

    init(cps: UnsafeBufferPointer<UInt32>, flags: UnsafeBufferPointer<UInt16>, start: Int, end: Int) {
        self.cps = cps
        self.flags = flags
        self.start = start
        self.end = end
        previousEnd = start
    }

    static let outOfRange: UInt32 = 0xFFFF_FFFF

    @inline(__always) func cp(_ i: Int) -> UInt32 { i >= start && i < end ? cps[i] : Self.outOfRange }
    @inline(__always) func fl(_ i: Int) -> CodepointFlags {
        CodepointFlags(rawValue: i >= start && i < end ? flags[i] : 0)
    }

    /// Closes the current token at `upTo`; returns its length.
    @inline(__always)
    mutating func add(_ out: inout [Int], _ upTo: Int) -> Int {
        let length = upTo - previousEnd
        if length > 0 { out.append(length) }
        previousEnd = upTo
        return length
    }

    @inline(__always)
    static func asciiLower(_ c: UInt32) -> UInt32 { (c >= 0x41 && c <= 0x5A) ? c + 32 : c }

    /// `'s|'t|'re|'ve|'m|'ll|'d` at `pos`: the match length, or 0. Case-insensitive for llama3.
    @inline(__always)
    func contraction(at pos: Int, caseInsensitive: Bool) -> Int {
        guard cps[pos] == 0x27, pos + 1 < end else { return 0 }
        var n = cp(pos + 1)
        if caseInsensitive { n = Self.asciiLower(n) }
        if n == 0x73 || n == 0x74 || n == 0x6D || n == 0x64 { return 2 }  // s t m d
        if pos + 2 < end {
            var nn = cp(pos + 2)
            if caseInsensitive { nn = Self.asciiLower(nn) }
            if (n == 0x72 && nn == 0x65) || (n == 0x76 && nn == 0x65) || (n == 0x6C && nn == 0x6C) {
                return 3  // re ve ll
            }
        }
        return 0
    }

    /// Whitespace tail shared by every matcher: `\s+(?!\S)|\s+` (gpt2) with `\s*[\r\n]+` first
    /// when `newlines` is set (llama3 family). Returns false when `pos` is not whitespace.
    @inline(__always)
    mutating func whitespace(_ out: inout [Int], _ pos: inout Int, newlines: Bool) -> Bool {
        var n = 0
        var lastNewlineEnd = 0
        while fl(pos + n).isWhitespace {
            if newlines {
                let c = cp(pos + n)
                if c == 0x0D || c == 0x0A { lastNewlineEnd = pos + n + 1 }
            }
            n += 1
        }
        if lastNewlineEnd > 0 {
            pos = lastNewlineEnd
            _ = add(&out, pos)
            return true
        }
        if n > 1 && cp(pos + n) != Self.outOfRange {
            pos += n - 1
            _ = add(&out, pos)
            return true
        }
        if n > 0 {
            pos += n
            _ = add(&out, pos)
            return true
        }
        return false
    }

    /// llama.cpp's `unicode_regex_split_custom_gpt2`.
    mutating func gpt2(_ out: inout [Int]) {
        var pos = start
        while pos < end {
            let c = cps[pos]
            let f = fl(pos)
            let k = contraction(at: pos, caseInsensitive: false)
            if k > 0 {
                pos += add(&out, pos + k)
                continue
            }
            let f2 = c == 0x20 ? fl(pos + 1) : f
            if f2.isLetter {
                if c == 0x20 { pos += 1 }
                while fl(pos).isLetter { pos += 1 }
                _ = add(&out, pos)
                continue
            }
            if f2.isNumber {
                if c == 0x20 { pos += 1 }
                while fl(pos).isNumber { pos += 1 }
                _ = add(&out, pos)
                continue
            }
            if Self.isOther(f2) {
                if c == 0x20 { pos += 1 }
                while Self.isOther(fl(pos)) { pos += 1 }
                _ = add(&out, pos)
                continue
            }
            if whitespace(&out, &pos, newlines: false) { continue }
            pos += 1
            _ = add(&out, pos)
        }
    }

    /// llama.cpp runs tekken's regex through std::regex over "collapsed" text (every letter
    /// outside ASCII becomes one stand-in letter, which matches both `[^a-z]` and `[^A-Z]`). The
    /// alternatives, tried in order at each position, and what backtracking leaves of them:
    /// 1. optional prefix (not \r, \n, a letter or a digit), then letters: the longest run of
    ///    "upper" letters (not a-z), backed off to the last position where a "lower" letter (not
    ///    A-Z) starts, then the longest run of lower letters from there;
    /// 2. when no lower letter can start: the prefix and the run of upper letters (all A-Z);
    /// 3. one number; 4. ` ?[^\s\p{L}\p{N}]+[\r\n/]*`; 5-7. whitespace as llama3.
    mutating func tekken(_ out: inout [Int]) {
        @inline(__always) func upper(_ i: Int) -> Bool { fl(i).isLetter && !(0x61...0x7A).contains(cp(i)) }
        @inline(__always) func lower(_ i: Int) -> Bool { fl(i).isLetter && !(0x41...0x5A).contains(cp(i)) }
        var pos = start
        while pos < end {
            let c = cps[pos]
            let f = fl(pos)
            let q = !f.isLetter && !f.isNumber && c != 0x0D && c != 0x0A ? pos + 1 : pos
            if fl(q).isLetter {
                var u = q
                while upper(u) { u += 1 }
                var l = u
                while l >= q && !lower(l) { l -= 1 }
                if l >= q {  // 1.
                    while lower(l) { l += 1 }
                    pos = l
                } else {  // 2.
                    pos = u
                }
                _ = add(&out, pos)
                continue
            }
            if f.isNumber {
                pos += 1
                _ = add(&out, pos)
                continue
            }
            let f2 = c == 0x20 ? fl(pos + 1) : f
            if Self.isOther(f2) {
                if c == 0x20 { pos += 1 }
                while Self.isOther(fl(pos)) { pos += 1 }
                while cp(pos) == 0x0D || cp(pos) == 0x0A || cp(pos) == 0x2F { pos += 1 }
                _ = add(&out, pos)
                continue
            }
            if whitespace(&out, &pos, newlines: true) { continue }
            pos += 1
            _ = add(&out, pos)
        }
    }

    /// `[^\s\p{L}\p{N}]` for an in-range codepoint.
    @inline(__always)
    static func isOther(_ f: CodepointFlags) -> Bool {
        f.rawValue != 0 && f.rawValue & 0x0106 == 0
    }

    /// llama.cpp's `unicode_regex_split_custom_llama3` / `_qwen2` / `_qwen35`.
    mutating func llama(_ out: inout [Int], maxDigits: Int, marks: Bool) {
        let letterMask: UInt16 = marks ? 0x0014 : 0x0004
        var pos = start
        while pos < end {
            let c = cps[pos]
            let f = fl(pos)
            let k = contraction(at: pos, caseInsensitive: true)
            if k > 0 {
                pos += add(&out, pos + k)
                continue
            }
            // [^\r\n\p{L}\p{N}]?\p{L}+
            if !(c == 0x0D || c == 0x0A || f.isNumber) {
                if f.rawValue & letterMask != 0 || fl(pos + 1).rawValue & letterMask != 0 {
                    pos += 1
                    while fl(pos).rawValue & letterMask != 0 { pos += 1 }
                    _ = add(&out, pos)
                    continue
                }
            }
            // \p{N}{1,maxDigits}
            if f.isNumber {
                var first = pos
                while fl(pos).isNumber {
                    pos += 1
                    if pos - first >= maxDigits {
                        _ = add(&out, pos)
                        first = pos
                    }
                }
                _ = add(&out, pos)
                continue
            }
            // <space>?[^\s\p{L}\p{N}]+[\r\n]*  (llama.cpp tests the unshifted flags for non-empty)
            let f2 = c == 0x20 ? fl(pos + 1) : f
            let excluded: UInt16 = marks ? 0x0116 : 0x0106
            if f2.rawValue & excluded == 0 && f.rawValue != 0 {
                if c == 0x20 { pos += 1 }
                while true {
                    let g = fl(pos).rawValue
                    if g == 0 || g & excluded != 0 { break }
                    pos += 1
                }
                while cp(pos) == 0x0D || cp(pos) == 0x0A { pos += 1 }
                _ = add(&out, pos)
                continue
            }
            if whitespace(&out, &pos, newlines: true) { continue }
            pos += 1
            _ = add(&out, pos)
        }
    }

    /// std::regex iteration of a single-codepoint class: `width(flags, cp)` returns how many
    /// codepoints of that class one match may take (1 for `\p{N}`, Int.max for `+`), 0 if none.
    mutating func classMatches(_ out: inout [Int], _ width: (CodepointFlags, UInt32) -> Int) {
        var pos = start
        while pos < end {
            let w = width(fl(pos), cps[pos])
            if w == 0 {
                pos += 1
                continue
            }
            _ = add(&out, pos)  // the gap before the match
            var n = 1
            while n < w && pos + n < end && width(fl(pos + n), cps[pos + n]) != 0 { n += 1 }
            pos += n
            _ = add(&out, pos)
        }
        _ = add(&out, end)
    }

    /// `\s?X+` for a class X: leftmost matches of a run of X with at most one whitespace before
    /// it. Whitespace is what llama.cpp's collapsed regex sees as `\s`: ASCII 0x09…0x0D and space,
    /// and every non-ASCII whitespace codepoint.
    mutating func spacedRuns(_ out: inout [Int], _ member: (UInt32, CodepointFlags) -> Bool) {
        @inline(__always) func sees(_ i: Int) -> Bool { member(cps[i], fl(i)) }
        var pos = start
        while pos < end {
            let lead = isRegexSpace(pos) && pos + 1 < end && sees(pos + 1) ? 1 : 0
            guard lead == 1 || sees(pos) else {
                pos += 1
                continue
            }
            _ = add(&out, pos)  // the gap before the match
            pos += lead
            while pos < end && sees(pos) { pos += 1 }
            _ = add(&out, pos)
        }
        _ = add(&out, end)
    }

    /// `\s+$`: the segment's trailing whitespace (the regex runs on each segment alone, so `$`
    /// is the segment's end).
    mutating func trailingWhitespace(_ out: inout [Int]) {
        var first = end
        while first > start && isRegexSpace(first - 1) { first -= 1 }
        _ = add(&out, first)
        _ = add(&out, end)
    }

    /// `\s` as llama.cpp's std::regex sees it: ASCII tab … carriage return and space, and every
    /// non-ASCII whitespace codepoint (which it rewrites to a vertical tab first).
    @inline(__always) func isRegexSpace(_ i: Int) -> Bool {
        let c = cps[i]
        return c < 128 ? (c == 0x20 || (0x09...0x0D).contains(c)) : fl(i).isWhitespace
    }

    /// `[0-9][0-9][0-9]`: leftmost non-overlapping triples of ASCII digits.
    mutating func asciiDigitTriples(_ out: inout [Int]) {
        @inline(__always) func digit(_ i: Int) -> Bool { i < end && cps[i] >= 0x30 && cps[i] <= 0x39 }
        var pos = start
        while pos < end {
            if digit(pos) && digit(pos + 1) && digit(pos + 2) {
                _ = add(&out, pos)
                pos += 3
                _ = add(&out, pos)
            } else {
                pos += 1
            }
        }
        _ = add(&out, end)
    }
}
