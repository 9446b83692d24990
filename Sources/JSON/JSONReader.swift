// The one JSON reader. It reads a whole document, or in prefix mode any prefix of one (what a
// constrained decoder has emitted so far), into values of the caller's own type through a
// `JSONValueBuilder`: the chat templates build template values (integers kept apart from
// floats), guided generation builds generated content (with what is still incomplete marked).
//
// Strict RFC 8259 syntax: no leading zeros, no control characters inside strings, no trailing
// commas or text. Iterative over values but recursive over nesting, which is bounded.

/// Builds the caller's values as the reader meets them. `complete` is false for a value the
/// input ended inside of (prefix mode only).
public protocol JSONValueBuilder {
    associatedtype Value
    func null(complete: Bool) -> Value
    func bool(_ value: Bool, complete: Bool) -> Value
    /// A number: its text as written (`-12.5e3`; in prefix mode the longest prefix that is a
    /// number) and that text's value.
    func number(_ text: String, _ value: Double, complete: Bool) -> Value
    func string(_ value: String, complete: Bool) -> Value
    func array(_ elements: [Value], complete: Bool) -> Value
    /// An object's members in document order; a key may appear more than once.
    func object(_ members: [(key: String, value: Value)], complete: Bool) -> Value
    /// A complete value and the bytes it was read from (offsets into the text's UTF-8, or into
    /// the bytes given), for builders that keep where a value lies. By default the value as it is.
    func value(_ value: Value, readFrom range: Range<Int>) -> Value
}

extension JSONValueBuilder {
    public func value(_ value: Value, readFrom range: Range<Int>) -> Value { value }
}

/// Why text is not JSON (or, in prefix mode, not a prefix of JSON).
public struct JSONReadError: Error, Equatable, CustomStringConvertible {
    /// What was wrong.
    public var message: String
    /// The byte offset where it was found.
    public var offset: Int

    public var description: String { "\(message) at byte \(offset)" }
}

public struct JSONReader<Builder: JSONValueBuilder> {
    /// Nesting beyond this is an error, not a stack overflow.
    public static var maximumDepth: Int { 512 }

    private let builder: Builder
    private let bytes: [UInt8]
    private let acceptsPrefix: Bool
    private var position = 0

    /// The document `text`. In prefix mode (`acceptingPrefix`) text cut anywhere reads as what
    /// it holds so far: a cut string keeps its characters, a cut number the digits that form a
    /// number (`12.` reads 12), a cut literal the only value it can become (`tr` reads true), a
    /// key without its value is left out, and text with no value yet reads as nil.
    public static func read(_ text: String, with builder: Builder, acceptingPrefix: Bool = false) throws(JSONReadError) -> Builder.Value? {
        var reader = JSONReader(builder: builder, bytes: Array(text.utf8), acceptsPrefix: acceptingPrefix)
        guard let (value, complete) = try reader.value(depth: 0) else {
            if acceptingPrefix { return nil }
            throw reader.failure("no JSON value")
        }
        reader.skipWhitespace()
        if complete, reader.position < reader.bytes.count { throw reader.failure("unexpected text after the JSON value") }
        return value
    }

    /// The whole value starting at byte `start` of `bytes` (after whitespace), and the offset
    /// just past it; what follows the value is not read (a value embedded in other text, such as
    /// a tool call in a model's answer).
    public static func read(valueIn bytes: [UInt8], from start: Int, with builder: Builder) throws(JSONReadError) -> (value: Builder.Value, end: Int) {
        var reader = JSONReader(builder: builder, bytes: bytes, acceptsPrefix: false)
        reader.position = min(max(0, start), bytes.count)
        guard let (value, _) = try reader.value(depth: 0) else { throw reader.failure("no JSON value") }
        return (value, reader.position)
    }

    private init(builder: Builder, bytes: [UInt8], acceptsPrefix: Bool) {
        self.builder = builder
        self.bytes = bytes
        self.acceptsPrefix = acceptsPrefix
    }

    private var atEnd: Bool { position >= bytes.count }

    private func failure(_ message: String) -> JSONReadError {
        JSONReadError(message: message, offset: position)
    }

    /// In prefix mode the value as far as it goes; otherwise an error, since the text ended.
    private func cut(_ value: Builder.Value) throws(JSONReadError) -> (Builder.Value, Bool) {
        guard acceptsPrefix else { throw failure("unexpected end of JSON") }
        return (value, false)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x09 || bytes[position] == 0x0A || bytes[position] == 0x0D {
            position += 1
        }
    }

    /// The value at `position` and whether it ended; nil when the text ended before it began.
    private mutating func value(depth: Int) throws(JSONReadError) -> (Builder.Value, Bool)? {
        guard depth <= Self.maximumDepth else { throw failure("nesting deeper than \(Self.maximumDepth)") }
        skipWhitespace()
        guard !atEnd else {
            if acceptsPrefix { return nil }
            throw failure("unexpected end of JSON")
        }
        let start = position
        guard let (value, complete) = try valueAtStart(depth: depth) else { return nil }
        return complete ? (builder.value(value, readFrom: start..<position), true) : (value, false)
    }

    /// The value whose first byte is at `position`.
    private mutating func valueAtStart(depth: Int) throws(JSONReadError) -> (Builder.Value, Bool)? {
        switch bytes[position] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""):
            let (text, complete) = try string()
            let value = builder.string(text, complete: complete)
            return complete ? (value, true) : try cut(value)
        case UInt8(ascii: "t"): return try literal("true") { [builder] in builder.bool(true, complete: $0) }
        case UInt8(ascii: "f"): return try literal("false") { [builder] in builder.bool(false, complete: $0) }
        case UInt8(ascii: "n"): return try literal("null") { [builder] in builder.null(complete: $0) }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number(depth: depth)
        default: throw failure("unexpected character")
        }
    }

    private mutating func literal(_ word: String, _ make: (Bool) -> Builder.Value) throws(JSONReadError) -> (Builder.Value, Bool) {
        for expected in word.utf8 {
            if atEnd { return try cut(make(false)) }
            guard bytes[position] == expected else { throw failure("invalid literal, expected \(word)") }
            position += 1
        }
        return (make(true), true)
    }

    /// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`. At the end of the text, a nested number
    /// may still grow (`[12` can become `[123]`), so it is incomplete; a document that is a
    /// number is not.
    private mutating func number(depth: Int) throws(JSONReadError) -> (Builder.Value, Bool)? {
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
        guard let end = lastValidEnd else {
            if acceptsPrefix { return nil }
            throw failure("unexpected end of JSON")
        }
        let text = String(decoding: bytes[start..<end], as: UTF8.self)
        guard let double = Double(text) else { throw failure("unreadable number") }
        let complete = end == position && (depth == 0 || !atEnd)
        let value = builder.number(text, double, complete: complete)
        return complete ? (value, true) : try cut(value)
    }

    /// The string starting at the opening quote, and whether its closing quote was seen. A cut
    /// escape sequence is dropped.
    private mutating func string() throws(JSONReadError) -> (String, Bool) {
        position += 1
        var utf8: [UInt8] = []
        while !atEnd {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return (String(decoding: utf8, as: UTF8.self), true)
            case UInt8(ascii: "\\"):
                guard let scalar = try escape() else { return (String(decoding: utf8, as: UTF8.self), false) }
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

    /// The escape at `position` (a backslash); nil when the text ends inside it. Lone
    /// surrogates, which no Swift string can hold, read as U+FFFD.
    private mutating func escape() throws(JSONReadError) -> Unicode.Scalar? {
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
            guard let unit = try hex4() else { return nil }
            guard (0xD800..<0xDC00).contains(unit) else { return Unicode.Scalar(unit) ?? "\u{FFFD}" }
            // A high surrogate: its low half must follow as another \u escape.
            if atEnd { return nil }
            guard bytes[position] == UInt8(ascii: "\\") else { return "\u{FFFD}" }
            if position + 1 == bytes.count { return nil }
            guard bytes[position + 1] == UInt8(ascii: "u") else { return "\u{FFFD}" }
            let resume = position
            position += 2
            guard let low = try hex4() else { return nil }
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

    /// Four hex digits as a code unit; nil when the text ends first.
    private mutating func hex4() throws(JSONReadError) -> UInt32? {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard !atEnd else { return nil }
            guard let digit = Character(Unicode.Scalar(bytes[position])).hexDigitValue else { throw failure("invalid \\u escape") }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private mutating func array(depth: Int) throws(JSONReadError) -> (Builder.Value, Bool) {
        position += 1
        var elements: [Builder.Value] = []
        skipWhitespace()
        if atEnd { return try cut(builder.array(elements, complete: false)) }
        if bytes[position] == UInt8(ascii: "]") {
            position += 1
            return (builder.array([], complete: true), true)
        }
        while true {
            guard let (element, complete) = try value(depth: depth + 1) else { return try cut(builder.array(elements, complete: false)) }
            elements.append(element)
            if !complete { return try cut(builder.array(elements, complete: false)) }
            skipWhitespace()
            if atEnd { return try cut(builder.array(elements, complete: false)) }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "]"):
                position += 1
                return (builder.array(elements, complete: true), true)
            default:
                throw failure("expected , or ] in an array")
            }
        }
    }

    private mutating func object(depth: Int) throws(JSONReadError) -> (Builder.Value, Bool) {
        position += 1
        var members: [(key: String, value: Builder.Value)] = []
        func partial() throws(JSONReadError) -> (Builder.Value, Bool) { try cut(builder.object(members, complete: false)) }
        skipWhitespace()
        if atEnd { return try partial() }
        if bytes[position] == UInt8(ascii: "}") {
            position += 1
            return (builder.object([], complete: true), true)
        }
        while true {
            skipWhitespace()
            if atEnd { return try partial() }
            guard bytes[position] == UInt8(ascii: "\"") else { throw failure("expected a property name") }
            let (key, keyComplete) = try string()
            skipWhitespace()
            if !keyComplete || atEnd { return try partial() }
            guard bytes[position] == UInt8(ascii: ":") else { throw failure("expected : after a property name") }
            position += 1
            guard let (value, complete) = try value(depth: depth + 1) else { return try partial() }
            members.append((key, value))
            if !complete { return try partial() }
            skipWhitespace()
            if atEnd { return try partial() }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "}"):
                position += 1
                return (builder.object(members, complete: true), true)
            default:
                throw failure("expected , or } in an object")
            }
        }
    }
}
