// Where the parts of a JSON value lie, for code that must find a value inside other text and
// hand its exact bytes on rather than rebuild it: a model's tool call, whose arguments go to the
// API as the text the model wrote and are read into content once, there.

/// A JSON value read for its place in the bytes: its range, and for strings their text,
/// for arrays and objects their parts' outlines. Numbers, booleans and null are only checked.
public struct JSONOutline: Sendable, Equatable {
    /// What the value is.
    public enum Kind: Sendable, Equatable {
        /// A number, `true`, `false` or `null`.
        case scalar
        /// A string and its text (escapes decoded).
        case string(String)
        /// An array's elements in order.
        case array([JSONOutline])
        /// An object's members in document order (a key may appear more than once).
        case object([Member])
    }

    /// One member of an object.
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSONOutline
    }

    public var kind: Kind
    /// The value's bytes: offsets into the UTF-8 it was read from, from its first byte to just
    /// past its last (surrounding whitespace excluded).
    public var range: Range<Int>

    /// The member `key` of an object (its last occurrence, as JSON readers resolve a repeated
    /// key), nil for other values or a missing key.
    public subscript(key: String) -> JSONOutline? {
        guard case let .object(members) = kind else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// The text of a string value, nil for other values.
    public var string: String? {
        if case let .string(text) = kind { return text }
        return nil
    }

    /// The whole document `text` (RFC 8259, as `JSONReader` reads it).
    public init(parsing text: String) throws(JSONReadError) {
        guard let outline = try JSONReader.read(text, with: JSONOutlineBuilder()) else {
            throw JSONReadError(message: "no JSON value", offset: 0)
        }
        self = outline
    }

    /// The value starting at byte `start` of `bytes` (after whitespace), and the offset just
    /// past it; what follows the value is not read.
    public static func read(valueIn bytes: [UInt8], from start: Int) throws(JSONReadError) -> (outline: JSONOutline, end: Int) {
        let (outline, end) = try JSONReader.read(valueIn: bytes, from: start, with: JSONOutlineBuilder())
        return (outline, end)
    }

    fileprivate init(_ kind: Kind) {
        self.kind = kind
        range = 0..<0
    }
}

/// Builds outlines for `JSONReader`: each value's kind, then its range once the reader knows it
/// (whole documents only).
private struct JSONOutlineBuilder: JSONValueBuilder {
    func null(complete: Bool) -> JSONOutline { JSONOutline(.scalar) }
    func bool(_ value: Bool, complete: Bool) -> JSONOutline { JSONOutline(.scalar) }
    func number(_ text: String, _ value: Double, complete: Bool) -> JSONOutline { JSONOutline(.scalar) }
    func string(_ value: String, complete: Bool) -> JSONOutline { JSONOutline(.string(value)) }
    func array(_ elements: [JSONOutline], complete: Bool) -> JSONOutline { JSONOutline(.array(elements)) }
    func object(_ members: [(key: String, value: JSONOutline)], complete: Bool) -> JSONOutline {
        JSONOutline(.object(members.map { JSONOutline.Member(key: $0.key, value: $0.value) }))
    }
    func value(_ value: JSONOutline, readFrom range: Range<Int>) -> JSONOutline {
        var placed = value
        placed.range = range
        return placed
    }
}
