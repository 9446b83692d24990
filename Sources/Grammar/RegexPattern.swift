// Parses the regex subset that string patterns may use into a syntax tree.
//
// Supported: literals, `.`, classes `[a-z0-9_]` and `[^…]`, `\d \w \s \D \W \S` (ASCII meanings, as
// Swift's `asciiOnlyCharacterClasses()`), escapes `\t \n \r \f \v \xHH \u{H…} \uHHHH` and escaped
// punctuation, groups `( )` and `(?: )`, alternation `|`, quantifiers `* + ? {n} {n,} {n,m}` (a lazy
// `?` suffix is accepted: it does not change which strings fully match), and `^`/`$` at the ends.
// Anything else (backreferences, lookaround, word boundaries, properties, possessive quantifiers,
// class set operations) throws, so no pattern is silently enforced with a different meaning.

/// A parsed pattern.
indirect enum RegexTree: Sendable {
    case scalars(ScalarRanges)
    case sequence([RegexTree])
    case alternation([RegexTree])
    case repetition(RegexTree, minimum: Int, maximum: Int?)
}

/// Parses `Regex._literalPattern`-style strings into `RegexTree`.
struct RegexPattern {
    private let source: String
    private let scalars: [UInt32]
    private var position = 0

    /// Largest count a `{n,m}` quantifier may name; larger ones would blow up the automaton anyway.
    static let maximumRepetition = 1000

    static func parse(_ pattern: String) throws(GrammarError) -> RegexTree {
        var parser = RegexPattern(source: pattern)
        return try parser.parseWhole()
    }

    private init(source: String) {
        self.source = source
        scalars = source.unicodeScalars.map(\.value)
    }

    private func fail(_ reason: String) -> GrammarError { .unsupportedPattern(pattern: source, reason: reason) }

    private var current: UInt32? { position < scalars.count ? scalars[position] : nil }

    private func isAt(_ character: Unicode.Scalar) -> Bool { current == character.value }

    private mutating func parseWhole() throws(GrammarError) -> RegexTree {
        // Full-match semantics already anchor both ends, so leading `^` and trailing `$` are no-ops.
        if isAt("^") { position += 1 }
        var end = scalars.count
        if end > position, scalars[end - 1] == 0x24, !isEscaped(at: end - 1) { end -= 1 }
        let body = Array(scalars[..<end])
        var inner = RegexPattern(source: source, scalars: body, position: position)
        let tree = try inner.parseAlternation()
        if inner.position < body.count {
            throw fail(inner.isAt(")") ? "unbalanced ')'" : "unexpected '\(Character(Unicode.Scalar(body[inner.position]) ?? "?"))'")
        }
        return tree
    }

    private init(source: String, scalars: [UInt32], position: Int) {
        self.source = source
        self.scalars = scalars
        self.position = position
    }

    private func isEscaped(at index: Int) -> Bool {
        var backslashes = 0
        var i = index - 1
        while i >= 0, scalars[i] == 0x5C { backslashes += 1; i -= 1 }
        return backslashes % 2 == 1
    }

    private mutating func parseAlternation() throws(GrammarError) -> RegexTree {
        var branches = [try parseSequence()]
        while isAt("|") {
            position += 1
            branches.append(try parseSequence())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func parseSequence() throws(GrammarError) -> RegexTree {
        var items: [RegexTree] = []
        while let c = current, c != 0x7C, c != 0x29 {  // '|' and ')' end a sequence
            let atom = try parseAtom()
            items.append(try parseQuantifiers(on: atom))
        }
        return items.count == 1 ? items[0] : .sequence(items)
    }

    private mutating func parseQuantifiers(on atom: RegexTree) throws(GrammarError) -> RegexTree {
        var tree = atom
        while let c = current {
            let bounds: (Int, Int?)
            switch c {
            case 0x2A: bounds = (0, nil); position += 1
            case 0x2B: bounds = (1, nil); position += 1
            case 0x3F: bounds = (0, 1); position += 1
            case 0x7B:
                guard let counted = try parseCountedBounds() else { return tree }
                bounds = counted
            default: return tree
            }
            if isAt("?") { position += 1 } else if isAt("+") { throw fail("possessive quantifiers") }
            tree = .repetition(tree, minimum: bounds.0, maximum: bounds.1)
        }
        return tree
    }

    /// `{n}`, `{n,}` or `{n,m}`; nil (and no input consumed) when the brace is not a quantifier.
    private mutating func parseCountedBounds() throws(GrammarError) -> (Int, Int?)? {
        let start = position
        position += 1
        guard let minimum = parseDecimal() else { position = start; throw fail("'{' that is not a quantifier") }
        var maximum: Int? = minimum
        if isAt(",") {
            position += 1
            maximum = parseDecimal()
        }
        guard isAt("}") else { position = start; throw fail("malformed '{n,m}' quantifier") }
        position += 1
        if let maximum, maximum < minimum { throw fail("quantifier {\(minimum),\(maximum)} has min > max") }
        if max(minimum, maximum ?? 0) > RegexPattern.maximumRepetition { throw .patternTooComplex(pattern: source) }
        return (minimum, maximum)
    }

    private mutating func parseDecimal() -> Int? {
        var value: Int?
        while let c = current, (0x30...0x39).contains(c) {
            value = min((value ?? 0) * 10 + Int(c - 0x30), 1_000_000)
            position += 1
        }
        return value
    }

    private mutating func parseAtom() throws(GrammarError) -> RegexTree {
        guard let c = current else { throw fail("unexpected end") }
        position += 1
        switch c {
        case 0x28:  // '('
            if isAt("?") {
                guard position + 1 < scalars.count, scalars[position + 1] == 0x3A else { throw fail("group options or lookaround '(?'") }
                position += 2
            }
            let inner = try parseAlternation()
            guard isAt(")") else { throw fail("missing ')'") }
            position += 1
            return inner
        case 0x5B: return .scalars(try parseClass())
        case 0x2E: return .scalars(RegexPattern.dot)
        case 0x5C: return .scalars(try parseEscape(inClass: false))
        case 0x2A, 0x2B, 0x3F: throw fail("quantifier without operand")
        case 0x5E, 0x24: throw fail("anchors other than a leading '^' and trailing '$'")
        case 0x7B: throw fail("'{' that is not a quantifier")
        default: return .scalars(ScalarRanges(c))
        }
    }

    /// `.` matches anything but a line break, as in Swift's `Regex` by default.
    static let dot = ScalarRanges(normalizing: [0x0A...0x0D, 0x85...0x85, 0x2028...0x2029]).complement

    private mutating func parseClass() throws(GrammarError) -> ScalarRanges {
        var negated = false
        if isAt("^") { negated = true; position += 1 }
        var members = ScalarRanges.empty
        var first = true
        while true {
            guard let c = current else { throw fail("missing ']'") }
            if c == 0x5D, !first { position += 1; break }
            if c == 0x5B { throw fail("nested classes, POSIX classes or set operations in '[…]'") }
            if (c == 0x26 || c == 0x2D || c == 0x7E), position + 1 < scalars.count, scalars[position + 1] == c {
                throw fail("class set operations")
            }
            first = false
            let low = try parseClassAtom()
            if isAt("-"), position + 1 < scalars.count, scalars[position + 1] != 0x5D {
                position += 1
                let high = try parseClassAtom()
                guard let lowScalar = single(low), let highScalar = single(high), lowScalar <= highScalar else {
                    throw fail("invalid class range")
                }
                members = members.union(ScalarRanges(normalizing: [lowScalar...highScalar]))
            } else {
                members = members.union(low)
            }
        }
        return negated ? members.complement : members
    }

    private func single(_ set: ScalarRanges) -> UInt32? {
        guard set.ranges.count == 1, set.ranges[0].count == 1 else { return nil }
        return set.ranges[0].lowerBound
    }

    private mutating func parseClassAtom() throws(GrammarError) -> ScalarRanges {
        guard let c = current else { throw fail("missing ']'") }
        position += 1
        return c == 0x5C ? try parseEscape(inClass: true) : ScalarRanges(c)
    }

    static let digits = ScalarRanges(normalizing: [0x30...0x39])
    static let wordCharacters = ScalarRanges(normalizing: [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    static let whitespace = ScalarRanges(normalizing: [0x09...0x0D, 0x20...0x20])

    private mutating func parseEscape(inClass: Bool) throws(GrammarError) -> ScalarRanges {
        guard let c = current else { throw fail("trailing '\\'") }
        position += 1
        switch Unicode.Scalar(c).map(Character.init) {
        case "d": return RegexPattern.digits
        case "D": return RegexPattern.digits.complement
        case "w": return RegexPattern.wordCharacters
        case "W": return RegexPattern.wordCharacters.complement
        case "s": return RegexPattern.whitespace
        case "S": return RegexPattern.whitespace.complement
        case "t": return ScalarRanges(0x09)
        case "n": return ScalarRanges(0x0A)
        case "v": return ScalarRanges(0x0B)
        case "f": return ScalarRanges(0x0C)
        case "r": return ScalarRanges(0x0D)
        case "x": return try scalarSet(hexDigits: 2)
        case "u":
            if isAt("{") {
                position += 1
                var value: UInt32 = 0
                var count = 0
                while let digit = current.flatMap(hexValue) {
                    value = value &* 16 &+ digit; count += 1; position += 1
                    if count > 8 { throw fail("overlong \\u{…}") }
                }
                guard count > 0, isAt("}") else { throw fail("malformed \\u{…}") }
                position += 1
                return try checkedScalar(value)
            }
            return try scalarSet(hexDigits: 4)
        default:
            // Escaped punctuation is itself; escaped letters and digits have meanings we do not support.
            let isAlphanumeric = (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
            if isAlphanumeric || c > 0x7E {
                throw fail("escape '\\\(Character(Unicode.Scalar(c) ?? "?"))'\(inClass ? " in a class" : "")")
            }
            return ScalarRanges(c)
        }
    }

    private func hexValue(_ c: UInt32) -> UInt32? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }

    private mutating func scalarSet(hexDigits: Int) throws(GrammarError) -> ScalarRanges {
        var value: UInt32 = 0
        for _ in 0..<hexDigits {
            guard let digit = current.flatMap(hexValue) else { throw fail("malformed hex escape") }
            value = value * 16 + digit
            position += 1
        }
        return try checkedScalar(value)
    }

    private func checkedScalar(_ value: UInt32) throws(GrammarError) -> ScalarRanges {
        guard value <= 0x10FFFF, !(0xD800...0xDFFF).contains(value) else { throw fail("escape of a non-scalar value") }
        return ScalarRanges(value)
    }
}
