/// Reads JSON, or any prefix of JSON, into `GeneratedContent`.
///
/// A constrained decoder emits JSON a token at a time, so mid-stream text is usually a prefix cut
/// inside a string, number, literal, array or object. The parser builds everything seen so far and
/// marks each value that had not ended as incomplete: a cut string keeps its characters, a cut
/// number the digits that form a number (`12.` reads 12), a cut literal the only value it can
/// become (`tr` reads `true`), and a key without a value yet is left out. Text that no JSON
/// document can start with throws.
struct PartialJSONParser {
    /// Thrown for text that is not a JSON prefix; becomes `GeneratedContent.ParsingError`.
    struct Failure: Error {
        var message: String
        var offset: Int
    }

    /// One parsed value, or nil when the input ended before a value began.
    private typealias Parsed = GeneratedContent?

    /// Nesting beyond this throws instead of exhausting the stack.
    private static let maximumDepth = 512

    private let bytes: [UInt8]
    private var position = 0

    /// Parses `text`. Whitespace-only text (and a lone `-`) has no value yet and reads as an
    /// incomplete `null`, so every prefix of a document parses.
    static func parse(_ text: String) throws(Failure) -> GeneratedContent {
        var parser = PartialJSONParser(bytes: Array(text.utf8))
        let value = try parser.parseValue(depth: 0)
        guard let value else {
            return GeneratedContent(kind: .null, isComplete: false)
        }
        parser.skipWhitespace()
        if value.isComplete, parser.position < parser.bytes.count {
            throw parser.failure("unexpected text after the JSON value")
        }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var atEnd: Bool { position >= bytes.count }

    private func failure(_ message: String) -> Failure {
        Failure(message: message, offset: position)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) {
            position += 1
        }
    }

    private mutating func parseValue(depth: Int) throws(Failure) -> Parsed {
        guard depth <= Self.maximumDepth else { throw failure("nesting deeper than \(Self.maximumDepth)") }
        skipWhitespace()
        guard !atEnd else { return nil }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""):
            let (text, complete) = try parseString()
            return GeneratedContent(kind: .string(text), isComplete: complete)
        case UInt8(ascii: "t"): return try parseLiteral("true", as: .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", as: .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", as: .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber(depth: depth)
        default: throw failure("unexpected character")
        }
    }

    private mutating func parseLiteral(_ word: String, as kind: GeneratedContent.Kind) throws(Failure) -> Parsed {
        for expected in word.utf8 {
            if atEnd { return GeneratedContent(kind: kind, isComplete: false) }
            guard bytes[position] == expected else { throw failure("invalid literal, expected \(word)") }
            position += 1
        }
        return GeneratedContent(kind: kind, isComplete: true)
    }

    /// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`; at the end of input the longest prefix
    /// that is a number is kept. A nested number that touches the end of input may still grow
    /// (`[12` can become `[123]`), so it is incomplete; a whole document that is a number is not.
    private mutating func parseNumber(depth: Int) throws(Failure) -> Parsed {
        let start = position
        var lastValidEnd: Int?  // end of the longest prefix that is a whole number
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        if !atEnd {
            if bytes[position] == UInt8(ascii: "0") {
                position += 1
                if !atEnd, isDigit(bytes[position]) { throw failure("leading zero in a number") }
            } else if isDigit(bytes[position]) {
                while !atEnd, isDigit(bytes[position]) { position += 1 }
            } else {
                throw failure("expected a digit")
            }
            lastValidEnd = position
        }
        if !atEnd, bytes[position] == UInt8(ascii: ".") {
            position += 1
            if !atEnd, !isDigit(bytes[position]) { throw failure("expected a digit after the decimal point") }
            while !atEnd, isDigit(bytes[position]) { position += 1; lastValidEnd = position }
        }
        if !atEnd, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if !atEnd, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            if !atEnd, !isDigit(bytes[position]) { throw failure("expected a digit in the exponent") }
            while !atEnd, isDigit(bytes[position]) { position += 1; lastValidEnd = position }
        }
        guard let end = lastValidEnd else { return nil }
        let complete = end == position && (depth == 0 || !atEnd)
        let text = String(decoding: bytes[start..<end], as: UTF8.self)
        guard let value = Double(text) else { throw failure("unreadable number") }
        return GeneratedContent(kind: .number(value), isComplete: complete)
    }

    /// The string starting at the opening quote, and whether its closing quote was seen. A cut
    /// escape sequence is dropped.
    private mutating func parseString() throws(Failure) -> (String, Bool) {
        position += 1
        var utf8: [UInt8] = []
        while !atEnd {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return (String(decoding: utf8, as: UTF8.self), true)
            case UInt8(ascii: "\\"):
                guard let scalar = try parseEscape() else { return (String(decoding: utf8, as: UTF8.self), false) }
                utf8 += Array(String(Character(scalar)).utf8)
            case 0..<0x20:
                throw failure("control character in a string")
            default:
                utf8.append(byte)
                position += 1
            }
        }
        return (String(decoding: utf8, as: UTF8.self), false)
    }

    /// The escape at `position` (a backslash); nil when the input ends inside it.
    private mutating func parseEscape() throws(Failure) -> Unicode.Scalar? {
        position += 1
        guard !atEnd else { return nil }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            guard let unit = try parseHex4() else { return nil }
            guard (0xD800..<0xDC00).contains(unit) else {
                // A lone low surrogate is not a scalar; JSON parsers commonly substitute U+FFFD.
                return Unicode.Scalar(unit) ?? "\u{FFFD}"
            }
            // A high surrogate: its low half must follow as another \u escape.
            guard position + 1 < bytes.count else { return nil }
            guard bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else { return "\u{FFFD}" }
            let resume = position
            position += 2
            guard let low = try parseHex4() else { return nil }
            guard (0xDC00..<0xE000).contains(low) else {
                position = resume
                return "\u{FFFD}"
            }
            return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
        default:
            position -= 1
            throw failure("invalid escape")
        }
    }

    /// Four hex digits as a code unit; nil when the input ends first.
    private mutating func parseHex4() throws(Failure) -> UInt32? {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard !atEnd else { return nil }
            guard let digit = Character(Unicode.Scalar(bytes[position])).hexDigitValue else { throw failure("invalid \\u escape") }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private mutating func parseArray(depth: Int) throws(Failure) -> Parsed {
        position += 1
        var elements: [GeneratedContent] = []
        func partial() -> Parsed { GeneratedContent(kind: .array(elements), isComplete: false) }
        skipWhitespace()
        if atEnd { return partial() }
        if bytes[position] == UInt8(ascii: "]") {
            position += 1
            return GeneratedContent(kind: .array([]), isComplete: true)
        }
        while true {
            guard let element = try parseValue(depth: depth + 1) else { return partial() }
            elements.append(element)
            if !element.isComplete { return partial() }
            skipWhitespace()
            if atEnd { return partial() }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "]"):
                position += 1
                return GeneratedContent(kind: .array(elements), isComplete: true)
            default:
                throw failure("expected , or ] in an array")
            }
        }
    }

    private mutating func parseObject(depth: Int) throws(Failure) -> Parsed {
        position += 1
        var properties: [String: GeneratedContent] = [:]
        var orderedKeys: [String] = []
        func result(complete: Bool) -> Parsed {
            GeneratedContent(kind: .structure(properties: properties, orderedKeys: orderedKeys), isComplete: complete)
        }
        skipWhitespace()
        if atEnd { return result(complete: false) }
        if bytes[position] == UInt8(ascii: "}") {
            position += 1
            return result(complete: true)
        }
        while true {
            skipWhitespace()
            if atEnd { return result(complete: false) }
            guard bytes[position] == UInt8(ascii: "\"") else { throw failure("expected a property name") }
            let (key, keyComplete) = try parseString()
            skipWhitespace()
            if !keyComplete || atEnd { return result(complete: false) }
            guard bytes[position] == UInt8(ascii: ":") else { throw failure("expected : after a property name") }
            position += 1
            guard let value = try parseValue(depth: depth + 1) else { return result(complete: false) }
            // A repeated key keeps its first position and takes the later value.
            if properties.updateValue(value, forKey: key) == nil { orderedKeys.append(key) }
            if !value.isComplete { return result(complete: false) }
            skipWhitespace()
            if atEnd { return result(complete: false) }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "}"):
                position += 1
                return result(complete: true)
            default:
                throw failure("expected , or } in an object")
            }
        }
    }
}
