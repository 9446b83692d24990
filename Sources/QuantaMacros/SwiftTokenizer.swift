// A tokenizer for the Swift that declarations of `@Generable` types are written in.
//
// It finds token boundaries, never meaning: identifiers, numbers, string and regex literals
// (with interpolation, multi-line and raw forms), comments, brackets and operators. The
// expansions copy expressions (descriptions, guides, default values) as source text, so the
// tokenizer only has to know where each one starts and ends. It works on UTF-8 bytes, iterates
// (no recursion, so nesting depth cannot overflow the stack) and reports the first malformed
// literal instead of guessing past it.

/// One token: a byte range of the source.
struct Token {
    enum Kind: Equatable {
        case identifier
        case number
        case string
        case regex
        /// `( ) [ ] { } < > , : ; @ # . ? !` and `->`, each its own token.
        case punctuation
        /// A run of other operator characters (`=`, `...`, `&&`, `+`, ...).
        case symbol
    }

    var kind: Kind
    /// Byte offsets into the source, `start..<end`.
    var start: Int
    var end: Int
    /// Whether a line break separates this token from the one before.
    var startsLine: Bool
}

/// Why a source could not be tokenized, at a byte offset.
struct TokenizeError: Error {
    var message: String
    var offset: Int
}

struct SwiftTokenizer {
    let bytes: [UInt8]

    init(_ source: String) {
        bytes = Array(source.utf8)
    }

    /// The text of `token`.
    func text(_ token: Token) -> String {
        String(decoding: bytes[token.start..<token.end], as: UTF8.self)
    }

    /// The source text from the start of `first` to the end of `last`.
    func text(from first: Token, through last: Token) -> String {
        guard first.start <= last.end else { return "" }
        return String(decoding: bytes[first.start..<last.end], as: UTF8.self)
    }

    /// All tokens, comments dropped.
    func tokenize() throws(TokenizeError) -> [Token] {
        var tokens: [Token] = []
        var i = 0
        var newline = true
        while i < bytes.count {
            let c = bytes[i]
            if c == 0x0A || c == 0x0D {
                newline = true
                i += 1
                continue
            }
            if c == 0x20 || c == 0x09 || c == 0x0B || c == 0x0C || c == 0x00 {
                i += 1
                continue
            }
            if c == slash && at(i + 1) == slash {
                while i < bytes.count && bytes[i] != 0x0A && bytes[i] != 0x0D { i += 1 }
                continue
            }
            if c == slash && at(i + 1) == star {
                let end = try skipBlockComment(from: i)
                if bytes[i..<end].contains(0x0A) { newline = true }
                i = end
                continue
            }
            let start = i
            let kind: Token.Kind
            if isIdentifierHead(c) {
                i = identifierEnd(from: i)
                kind = .identifier
            } else if c == backtick {
                guard let close = bytes[(i + 1)...].firstIndex(where: { $0 == backtick || $0 == 0x0A }), bytes[close] == backtick,
                      close > i + 1
                else { throw TokenizeError(message: "unterminated escaped identifier", offset: i) }
                i = close + 1
                kind = .identifier
            } else if isDigit(c) {
                i = numberEnd(from: i)
                kind = .number
            } else if c == quote || (c == hash && rawStringHashes(at: i) != nil) {
                i = try stringEnd(from: i)
                kind = .string
            } else if c == hash && regexHashes(at: i) != nil {
                i = try extendedRegexEnd(from: i)
                kind = .regex
            } else if c == slash && startsBareRegex(at: i, after: tokens.last) {
                i = try bareRegexEnd(from: i)
                kind = .regex
            } else if c == 0x2D && at(i + 1) == 0x3E {  // ->
                i += 2
                kind = .punctuation
            } else if isPunctuation(c) {
                i += 1
                kind = .punctuation
            } else if c == dollar {
                i += 1
                while i < bytes.count && (isIdentifierBody(bytes[i])) { i += 1 }
                kind = .identifier
            } else if isOperator(c) {
                i += 1
                while i < bytes.count && isOperator(bytes[i]) && !(bytes[i] == slash && (at(i + 1) == slash || at(i + 1) == star)) {
                    i += 1
                }
                kind = .symbol
            } else {
                throw TokenizeError(message: "unexpected character in declaration", offset: i)
            }
            tokens.append(Token(kind: kind, start: start, end: i, startsLine: newline))
            newline = false
        }
        return tokens
    }

    // MARK: - Characters

    private let slash: UInt8 = 0x2F, star: UInt8 = 0x2A, quote: UInt8 = 0x22, hash: UInt8 = 0x23
    private let backslash: UInt8 = 0x5C, backtick: UInt8 = 0x60, dollar: UInt8 = 0x24

    private func at(_ i: Int) -> UInt8 { i < bytes.count ? bytes[i] : 0 }

    private func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    /// Letters, `_` and every non-ASCII byte (Swift identifiers may use most of Unicode).
    private func isIdentifierHead(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A || c == 0x5F || c >= 0x80 }
    private func isIdentifierBody(_ c: UInt8) -> Bool { isIdentifierHead(c) || isDigit(c) }
    private static let punctuation = Set("()[]{}<>,:;@#.?!".utf8)
    private static let operators = Set("/=-+*%&|^~".utf8)
    private func isPunctuation(_ c: UInt8) -> Bool { Self.punctuation.contains(c) }
    private func isOperator(_ c: UInt8) -> Bool { Self.operators.contains(c) }

    private func identifierEnd(from start: Int) -> Int {
        var i = start
        while i < bytes.count && isIdentifierBody(bytes[i]) { i += 1 }
        return i
    }

    /// Digits, letters (hex digits, exponents, suffixes), `_`, and a `.` only when a digit
    /// follows (so `1...3` is three tokens), with a sign after an exponent.
    private func numberEnd(from start: Int) -> Int {
        var i = start
        let hex = at(i) == 0x30 && (at(i + 1) | 0x20) == 0x78
        while i < bytes.count {
            let c = bytes[i]
            if isIdentifierBody(c) {
                let exponent = hex ? (c | 0x20) == 0x70 : (c | 0x20) == 0x65
                i += 1
                if exponent && (at(i) == 0x2B || at(i) == 0x2D) { i += 1 }
            } else if c == 0x2E && isDigit(at(i + 1)) {
                i += 1
            } else {
                break
            }
        }
        return i
    }

    // MARK: - Comments

    /// The end of a block comment starting at `start` (they nest).
    private func skipBlockComment(from start: Int) throws(TokenizeError) -> Int {
        var depth = 0
        var i = start
        while i < bytes.count {
            if bytes[i] == slash && at(i + 1) == star {
                depth += 1
                i += 2
            } else if bytes[i] == star && at(i + 1) == slash {
                depth -= 1
                i += 2
                if depth == 0 { return i }
            } else {
                i += 1
            }
        }
        throw TokenizeError(message: "unterminated comment", offset: start)
    }

    // MARK: - Strings

    /// The number of `#` before a `"` at `i`, if a (raw) string starts there.
    private func rawStringHashes(at i: Int) -> Int? {
        var j = i
        while at(j) == hash { j += 1 }
        return at(j) == quote ? j - i : nil
    }

    /// The end of the string literal starting at `start`. Interpolations (`\(...)`, with the
    /// raw string's hashes between `\` and `(`) may hold any tokens, strings included: a stack
    /// of the open literals and parentheses keeps track without recursion.
    private func stringEnd(from start: Int) throws(TokenizeError) -> Int {
        // Each open literal: its hash count, whether it is multi-line, and the parenthesis depth
        // of the interpolation that contains it (-1 for the outermost).
        struct Literal { var hashes: Int; var multiline: Bool }
        var literals: [Literal] = []
        var parens: [Int] = []  // open parentheses inside each interpolation
        var i = start

        func open(at j: Int) -> Int? {
            guard let hashes = rawStringHashes(at: j) else { return nil }
            let q = j + hashes
            let multiline = at(q + 1) == quote && at(q + 2) == quote
            literals.append(Literal(hashes: hashes, multiline: multiline))
            return q + (multiline ? 3 : 1)
        }

        guard let first = open(at: i) else { throw TokenizeError(message: "malformed string literal", offset: start) }
        i = first
        while i < bytes.count {
            if literals.count > parens.count {
                // Inside the innermost literal's text.
                let literal = literals[literals.count - 1]
                let c = bytes[i]
                if c == backslash && (0..<literal.hashes).allSatisfy({ at(i + 1 + $0) == hash }) {
                    let after = i + 1 + literal.hashes
                    if at(after) == 0x28 {  // (
                        parens.append(0)
                        i = after + 1
                    } else {
                        i = after + 1
                    }
                } else if c == quote && (!literal.multiline || (at(i + 1) == quote && at(i + 2) == quote)) {
                    let close = i + (literal.multiline ? 3 : 1)
                    if (0..<literal.hashes).allSatisfy({ at(close + $0) == hash }) {
                        literals.removeLast()
                        i = close + literal.hashes
                        if literals.isEmpty { return i }
                    } else {
                        i += 1
                    }
                } else if (c == 0x0A || c == 0x0D) && !literal.multiline {
                    break
                } else {
                    i += 1
                }
            } else {
                // Inside an interpolation: code until its closing parenthesis.
                let c = bytes[i]
                if c == 0x28 {
                    parens[parens.count - 1] += 1
                    i += 1
                } else if c == 0x29 {
                    if parens[parens.count - 1] == 0 { parens.removeLast() } else { parens[parens.count - 1] -= 1 }
                    i += 1
                } else if c == quote || (c == hash && rawStringHashes(at: i) != nil) {
                    i = open(at: i) ?? (i + 1)
                } else if c == slash && at(i + 1) == slash {
                    while i < bytes.count && bytes[i] != 0x0A { i += 1 }
                } else if c == slash && at(i + 1) == star {
                    i = try skipBlockComment(from: i)
                } else {
                    i += 1
                }
            }
        }
        throw TokenizeError(message: "unterminated string literal", offset: start)
    }

    // MARK: - Regex literals

    /// The number of `#` before a `/` at `i`, if an extended regex literal starts there.
    private func regexHashes(at i: Int) -> Int? {
        var j = i
        while at(j) == hash { j += 1 }
        return j > i && at(j) == slash ? j - i : nil
    }

    private func extendedRegexEnd(from start: Int) throws(TokenizeError) -> Int {
        guard let hashes = regexHashes(at: start) else { throw TokenizeError(message: "malformed regex literal", offset: start) }
        var i = start + hashes + 1
        while i < bytes.count {
            if bytes[i] == backslash {
                i += 2
            } else if bytes[i] == slash && (0..<hashes).allSatisfy({ at(i + 1 + $0) == hash }) {
                return i + 1 + hashes
            } else {
                i += 1
            }
        }
        throw TokenizeError(message: "unterminated regex literal", offset: start)
    }

    /// A `/` starts a bare regex literal where an expression starts (after `(`, `[`, `,`, `:`,
    /// `=`, or at the start), and not before a space (as Swift's own rule).
    private func startsBareRegex(at i: Int, after previous: Token?) -> Bool {
        let next = at(i + 1)
        if next == 0x20 || next == 0x09 || next == 0x0A || next == 0x0D || next == 0 || next == slash || next == star { return false }
        guard let previous else { return true }
        let p = bytes[previous.start]
        switch previous.kind {
        case .punctuation: return p == 0x28 || p == 0x5B || p == 0x2C || p == 0x3A || p == 0x7B
        case .symbol: return previous.end - previous.start == 1 && p == 0x3D
        default: return false
        }
    }

    private func bareRegexEnd(from start: Int) throws(TokenizeError) -> Int {
        var i = start + 1
        var inClass = 0
        while i < bytes.count {
            let c = bytes[i]
            if c == backslash {
                i += 2
            } else if c == 0x5B {
                inClass += 1
                i += 1
            } else if c == 0x5D && inClass > 0 {
                inClass -= 1
                i += 1
            } else if c == slash && inClass == 0 {
                return i + 1
            } else if c == 0x0A || c == 0x0D {
                break
            } else {
                i += 1
            }
        }
        throw TokenizeError(message: "unterminated regex literal", offset: start)
    }
}
