// A plain JSON document tree with members in document order, for code that reads and writes
// JSON as data (the server's request and response bodies) rather than into its own types.

/// A JSON value. Objects keep their members in document order (a repeated key keeps its last
/// value when looked up by `subscript`).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number and its text as written (`1.0` and `1` stay apart; writing uses the text).
    case number(Double, text: String)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    /// A number written the shortest way that reads back as `value` (integers without a point).
    public static func number(_ value: Double) -> JSONValue {
        guard value.isFinite else { return .null }
        if value == 0, value.sign == .minus { return .number(value, text: "-0") }
        if value == value.rounded(), abs(value) < 1e15 { return .number(value, text: String(Int64(value))) }
        return .number(value, text: "\(value)")
    }

    /// A float written the shortest way that reads back as `value` as a `Float` (`0.1`, where
    /// the double it converts to writes `0.10000000149011612`); the value is what that text reads
    /// as, as for a number read from a document.
    public static func number(float value: Float) -> JSONValue {
        guard value.isFinite else { return .null }
        var text = "\(value)"
        if text.hasSuffix(".0") { text.removeLast(2) }
        return .number(Double(text)!, text: text)
    }

    /// An integer.
    public static func integer(_ value: Int) -> JSONValue { .number(Double(value), text: String(value)) }

    /// Parses a whole document (RFC 8259; nesting at most `JSONReader.maximumDepth`).
    public init(parsing text: String) throws(JSONReadError) {
        guard let value = try JSONReader.read(text, with: JSONValueTreeBuilder()) else {
            throw JSONReadError(message: "empty document", offset: 0)
        }
        self = value
    }

    /// The member `key` of an object (its last occurrence), nil for other values or a missing key.
    public subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// The value of a number, nil for other values.
    public var doubleValue: Double? {
        if case let .number(value, _) = self { return value }
        return nil
    }

    /// The text of a string, nil for other values.
    public var stringValue: String? {
        if case let .string(text) = self { return text }
        return nil
    }

    /// The elements of an array, nil for other values.
    public var arrayValue: [JSONValue]? {
        if case let .array(elements) = self { return elements }
        return nil
    }

    /// Compact JSON text (no spaces), strings escaped as `JSONString` writes them.
    public var jsonText: String {
        var out = ""
        write(into: &out)
        return out
    }

    /// JSON text for people to read: each array element and object member on a line of its
    /// own, indented two spaces a level, `"key": value`; empty arrays and objects stay `[]`, `{}`.
    public var indentedText: String {
        var out = ""
        write(into: &out, indentation: "")
        return out
    }

    /// Appends the compact JSON text of this value to `out`.
    public func write(into out: inout String) {
        write(into: &out, indentation: nil)
    }

    /// The one writer: compact when `indentation` is nil, else lines indented by it and deeper.
    private func write(into out: inout String, indentation: String?) {
        let inner = indentation.map { $0 + "  " }
        let separator = inner.map { ",\n" + $0 } ?? ","
        func open(_ bracket: String) { out += bracket + (inner.map { "\n" + $0 } ?? "") }
        func close(_ bracket: String) { out += (indentation.map { "\n" + $0 } ?? "") + bracket }
        switch self {
        case .null: out += "null"
        case let .bool(b): out += b ? "true" : "false"
        case let .number(_, text): out += text
        case let .string(s): JSONString.write(s, into: &out)
        case let .array(elements) where elements.isEmpty: out += "[]"
        case let .object(members) where members.isEmpty: out += "{}"
        case let .array(elements):
            open("[")
            for (i, e) in elements.enumerated() {
                if i > 0 { out += separator }
                e.write(into: &out, indentation: inner)
            }
            close("]")
        case let .object(members):
            open("{")
            for (i, m) in members.enumerated() {
                if i > 0 { out += separator }
                JSONString.write(m.key, into: &out)
                out += indentation == nil ? ":" : ": "
                m.value.write(into: &out, indentation: inner)
            }
            close("}")
        }
    }

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x, _), .number(y, _)): return x == y
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }
}

/// Builds `JSONValue` trees for `JSONReader` (whole documents only).
public struct JSONValueTreeBuilder: JSONValueBuilder {
    public init() {}
    public func null(complete: Bool) -> JSONValue { .null }
    public func bool(_ value: Bool, complete: Bool) -> JSONValue { .bool(value) }
    public func number(_ text: String, _ value: Double, complete: Bool) -> JSONValue { .number(value, text: text) }
    public func string(_ value: String, complete: Bool) -> JSONValue { .string(value) }
    public func array(_ elements: [JSONValue], complete: Bool) -> JSONValue { .array(elements) }
    public func object(_ members: [(key: String, value: JSONValue)], complete: Bool) -> JSONValue { .object(members) }
}
