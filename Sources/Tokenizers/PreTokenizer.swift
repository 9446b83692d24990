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
}

/// The split rules of one `tokenizer.ggml.pre` value.
struct PreTokenizer: Sendable {
    let stages: [SplitStage]

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
        case "falcon":
            stages = [.punctuationRuns(backtick: true), .gpt2, .asciiDigitTriples]
        case "starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b", "mellum2":
            stages = [.eachNumber, .gpt2]
        case "gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0",
             "mellum", "modern-bert", "jina-v1-en", "jina-v2-code", "roberta-bpe", "exaone4", "mpt",
             "olmo", "jais", "trillion", "granite-docling":
            stages = [.gpt2]
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
