// Splits template source into text and tag tokens the way jinja2's lexer does with Hugging
// Face's settings (trim_blocks and lstrip_blocks on). Whitespace control is decided here, not
// in the renderer, so the parser sees text that is already trimmed:
//   {%- / {{- / {#-   strip all whitespace before the tag
//   -%} / -}} / -#}   strip all whitespace after the tag
//   trim_blocks       drop the first newline after a block or comment tag
//   lstrip_blocks     drop spaces/tabs between a line start and a block or comment tag
//   {%+ / +%}         opt a tag out of lstrip_blocks / trim_blocks

enum TokenKind: Equatable {
    case text(String)
    case blockBegin, blockEnd, variableBegin, variableEnd
    case name(String)
    case string(String)
    case int(Int)
    case float(Double)
    case op(String)
    case eof
}

struct Token {
    let kind: TokenKind
    let location: SourceLocation
}

/// Python's str.isspace() for one scalar (what rstrip()/strip() remove by default).
func pyIsSpace(_ s: Unicode.Scalar) -> Bool {
    switch s.value {
    case 0x09...0x0D, 0x1C...0x20, 0x85, 0xA0: return true
    default: return s.value > 0x7F && s.properties.isWhitespace
    }
}

struct Lexer {
    private let src: [Unicode.Scalar]
    private var pos = 0
    private var tokens: [Token] = []
    private var lineStarts: [Int] = [0]
    let trimBlocks: Bool
    let lstripBlocks: Bool

    /// Normalises newlines to "\n" and drops one trailing newline (jinja2's
    /// keep_trailing_newline=False), then tokenizes.
    init(source: String, trimBlocks: Bool = true, lstripBlocks: Bool = true) {
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(source.unicodeScalars.count)
        var previousWasCR = false
        for s in source.unicodeScalars {
            if s == "\r" { scalars.append("\n"); previousWasCR = true; continue }
            if s == "\n" && previousWasCR { previousWasCR = false; continue }
            previousWasCR = false
            scalars.append(s)
        }
        if scalars.last == "\n" { scalars.removeLast() }
        src = scalars
        for (i, s) in src.enumerated() where s == "\n" { lineStarts.append(i + 1) }
        self.trimBlocks = trimBlocks
        self.lstripBlocks = lstripBlocks
    }

    func location(_ offset: Int) -> SourceLocation {
        // Binary search for the line containing offset.
        var lo = 0, hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        return SourceLocation(line: lo + 1, column: offset - lineStarts[lo] + 1)
    }

    private func at(_ i: Int, _ text: String) -> Bool {
        var j = i
        for s in text.unicodeScalars {
            guard j < src.count, src[j] == s else { return false }
            j += 1
        }
        return true
    }

    private func string(_ range: Range<Int>) -> String {
        var s = String.UnicodeScalarView()
        s.append(contentsOf: src[range])
        return String(s)
    }

    private mutating func emit(_ kind: TokenKind, at offset: Int) {
        tokens.append(Token(kind: kind, location: location(offset)))
    }

    enum TagKind { case block, variable, comment }

    mutating func tokenize() throws(TemplateError) -> [Token] {
        var lineStarting = true
        while pos < src.count {
            // Find the next tag opener.
            var tagStart = pos
            var kind: TagKind?
            while tagStart + 1 < src.count {
                if src[tagStart] == "{" {
                    switch src[tagStart + 1] {
                    case "%": kind = .block
                    case "{": kind = .variable
                    case "#": kind = .comment
                    default: break
                    }
                    if kind != nil { break }
                }
                tagStart += 1
            }
            guard let kind else {
                emit(.text(string(pos..<src.count)), at: pos)
                pos = src.count
                break
            }
            let modifier: Unicode.Scalar? = tagStart + 2 < src.count && (src[tagStart + 2] == "-" || src[tagStart + 2] == "+") ? src[tagStart + 2] : nil
            var textEnd = tagStart
            if modifier == "-" {
                while textEnd > pos, pyIsSpace(src[textEnd - 1]) { textEnd -= 1 }
            } else if modifier != "+" && lstripBlocks && kind != .variable {
                textEnd = lstripEnd(textStart: pos, tagStart: tagStart, lineStarting: lineStarting)
            }
            if textEnd > pos { emit(.text(string(pos..<textEnd)), at: pos) }
            pos = tagStart + 2 + (modifier == nil ? 0 : 1)

            if kind == .comment {
                var end = pos
                while end + 1 < src.count, !(src[end] == "#" && src[end + 1] == "}") { end += 1 }
                guard end + 1 < src.count else { throw .syntax("missing end of comment tag", location(tagStart)) }
                let strip = end > pos && src[end - 1] == "-"
                let plus = end > pos && src[end - 1] == "+"
                pos = end + 2
                lineStarting = consumeAfterTag(strip: strip, trim: trimBlocks && !plus)
                continue
            }

            let beginIndex = tokens.count
            emit(kind == .block ? .blockBegin : .variableBegin, at: tagStart)
            let (strip, plus) = try lexTagBody(kind: kind, tagStart: tagStart)
            emit(kind == .block ? .blockEnd : .variableEnd, at: pos)
            pos += (strip || plus ? 1 : 0) + 2
            lineStarting = consumeAfterTag(strip: strip, trim: kind == .block && trimBlocks && !plus)

            // {% raw %}: everything up to {% endraw %} is text.
            if kind == .block, tokens.count == beginIndex + 3, tokens[beginIndex + 1].kind == .name("raw") {
                tokens.removeLast(3)
                lineStarting = try lexRaw(start: tagStart)
            }
        }
        emit(.eof, at: src.count)
        return tokens
    }

    /// lstrip_blocks: the text ends early when only spaces/tabs separate the tag from the start
    /// of its line (or from a previous tag that ended a line).
    private func lstripEnd(textStart: Int, tagStart: Int, lineStarting: Bool) -> Int {
        var lineStart = tagStart
        while lineStart > textStart, src[lineStart - 1] != "\n" { lineStart -= 1 }
        guard lineStart > textStart || lineStarting else { return tagStart }
        guard lineStart < tagStart, src[lineStart..<tagStart].allSatisfy(pyIsSpace) else { return tagStart }
        return lineStart
    }

    /// Skips what whitespace control removes after a tag; returns whether what was consumed ends
    /// with a newline (jinja2's `line_starting`).
    private mutating func consumeAfterTag(strip: Bool, trim: Bool) -> Bool {
        var last: Unicode.Scalar? = nil
        if strip {
            while pos < src.count, pyIsSpace(src[pos]) { last = src[pos]; pos += 1 }
        } else if trim, pos < src.count, src[pos] == "\n" {
            last = "\n"
            pos += 1
        }
        return last == "\n"
    }

    /// Emits the text up to `{% endraw %}`; returns `line_starting` after the end tag.
    private mutating func lexRaw(start: Int) throws(TemplateError) -> Bool {
        var i = pos
        while i + 1 < src.count {
            if src[i] == "{" && src[i + 1] == "%" {
                var j = i + 2
                let strip = j < src.count && src[j] == "-"
                if j < src.count && (src[j] == "-" || src[j] == "+") { j += 1 }
                while j < src.count, pyIsSpace(src[j]) { j += 1 }
                if at(j, "endraw") {
                    j += 6
                    while j < src.count, pyIsSpace(src[j]) { j += 1 }
                    let endStrip = j < src.count && src[j] == "-"
                    if endStrip || (j < src.count && src[j] == "+") { j += 1 }
                    if at(j, "%}") {
                        var textEnd = i
                        if strip { while textEnd > pos, pyIsSpace(src[textEnd - 1]) { textEnd -= 1 } }
                        if textEnd > pos { emit(.text(string(pos..<textEnd)), at: pos) }
                        pos = j + 2
                        return consumeAfterTag(strip: endStrip, trim: trimBlocks)
                    }
                }
            }
            i += 1
        }
        throw .syntax("missing endraw for raw block", location(start))
    }

    /// Lexes expression tokens up to the closing delimiter; returns the (-, +) modifiers seen
    /// on the close. `pos` is left at the close.
    private mutating func lexTagBody(kind: TagKind, tagStart: Int) throws(TemplateError) -> (strip: Bool, plus: Bool) {
        let close = kind == .block ? "%}" : "}}"
        var balance: [Unicode.Scalar] = []
        while true {
            while pos < src.count, pyIsSpace(src[pos]) { pos += 1 }
            guard pos < src.count else {
                throw .syntax("unexpected end of template, expected '\(close)'", location(tagStart))
            }
            if balance.isEmpty {
                if at(pos, close) { return (false, false) }
                if at(pos, "-" + close) { return (true, false) }
                if kind == .block && at(pos, "+" + close) { return (false, true) }
            }
            let start = pos
            let c = src[pos]
            if c == "_" || c.properties.isAlphabetic {
                while pos < src.count, src[pos] == "_" || src[pos].properties.isAlphabetic || src[pos].properties.numericType != nil { pos += 1 }
                emit(.name(string(start..<pos)), at: start)
            } else if c.value >= 0x30 && c.value <= 0x39 {
                try lexNumber()
            } else if c == "'" || c == "\"" {
                try lexString(quote: c)
            } else {
                let two = pos + 1 < src.count ? string(pos..<pos + 2) : ""
                let op: String
                if ["//", "**", "==", "!=", "<=", ">="].contains(two) {
                    op = two
                } else if "+-*/%~<>=()[]{},.:|".unicodeScalars.contains(c) {
                    op = String(c)
                } else {
                    throw .syntax("unexpected character '\(c)'", location(pos))
                }
                switch op {
                case "(": balance.append(")")
                case "[": balance.append("]")
                case "{": balance.append("}")
                case ")", "]", "}":
                    guard let expected = balance.popLast() else { throw .syntax("unexpected '\(op)'", location(pos)) }
                    guard String(expected) == op else { throw .syntax("unexpected '\(op)', expected '\(expected)'", location(pos)) }
                default: break
                }
                pos += op.unicodeScalars.count
                emit(.op(op), at: start)
            }
        }
    }

    private func isDigit(_ i: Int) -> Bool { i < src.count && src[i].value >= 0x30 && src[i].value <= 0x39 }

    private mutating func lexNumber() throws(TemplateError) {
        let start = pos
        var p = pos
        func digits(_ p: inout Int) { while isDigit(p) || (p < src.count && src[p] == "_" && isDigit(p + 1)) { p += 1 } }
        digits(&p)
        var isFloat = false
        if p < src.count, src[p] == ".", isDigit(p + 1) {
            isFloat = true
            p += 1
            digits(&p)
        }
        if p < src.count, src[p] == "e" || src[p] == "E" {
            var q = p + 1
            if q < src.count, src[q] == "+" || src[q] == "-" { q += 1 }
            if isDigit(q) {
                isFloat = true
                p = q
                digits(&p)
            }
        }
        pos = p
        let text = string(start..<pos).replacingOccurrences("_", with: "")
        if isFloat {
            emit(.float(Double(text) ?? 0), at: start)
        } else if let i = Int(text) {
            emit(.int(i), at: start)
        } else {
            throw .syntax("integer literal too large", location(start))
        }
    }

    /// String literals unescape like Python's "unicode-escape" codec, which jinja2 uses.
    private mutating func lexString(quote: Unicode.Scalar) throws(TemplateError) {
        let start = pos
        pos += 1
        var out = String.UnicodeScalarView()
        while true {
            guard pos < src.count else { throw .syntax("unterminated string", location(start)) }
            let c = src[pos]
            if c == quote { pos += 1; break }
            if c != "\\" || pos + 1 >= src.count { out.append(c); pos += 1; continue }
            let e = src[pos + 1]
            pos += 2
            switch e {
            case "\\": out.append("\\")
            case "'": out.append("'")
            case "\"": out.append("\"")
            case "a": out.append("\u{07}")
            case "b": out.append("\u{08}")
            case "f": out.append("\u{0C}")
            case "n": out.append("\n")
            case "r": out.append("\r")
            case "t": out.append("\t")
            case "v": out.append("\u{0B}")
            case "\n": break
            case "x", "u", "U":
                let width = e == "x" ? 2 : e == "u" ? 4 : 8
                guard pos + width <= src.count, let v = UInt32(string(pos..<pos + width), radix: 16), let s = Unicode.Scalar(v) else {
                    throw .syntax("bad \\\(e) escape in string", location(pos - 2))
                }
                out.append(s)
                pos += width
            case "0"..."7":
                var v = e.value - 0x30
                var n = 1
                while n < 3, pos < src.count, src[pos].value >= 0x30, src[pos].value <= 0x37 {
                    v = v * 8 + src[pos].value - 0x30
                    pos += 1
                    n += 1
                }
                out.append(Unicode.Scalar(v) ?? "\u{FFFD}")
            default:
                out.append("\\")
                out.append(e)
            }
        }
        emit(.string(String(out)), at: start)
    }
}

extension String {
    /// Replaces every occurrence of `target` (compared by Unicode scalars) with `replacement`.
    func replacingOccurrences(_ target: String, with replacement: String) -> String {
        let s = Array(unicodeScalars), t = Array(target.unicodeScalars)
        guard !t.isEmpty, s.count >= t.count else { return self }
        var out = String.UnicodeScalarView()
        var i = 0
        while i < s.count {
            if i + t.count <= s.count, s[i] == t[0], Array(s[i..<i + t.count]) == t {
                out.append(contentsOf: replacement.unicodeScalars)
                i += t.count
            } else {
                out.append(s[i])
                i += 1
            }
        }
        return String(out)
    }
}
