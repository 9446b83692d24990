// `Decodable` values from `JSONValue` trees, so Codable types are read by the package's one JSON
// reader. It reads what Foundation's `JSONEncoder` writes with its default strategies (`Data` as
// Base64, `URL` as a string, `Date` through its own `Decodable`) and fails where `JSONDecoder`
// fails, with the same kinds of `DecodingError` and coding paths.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes `Decodable` values from JSON trees or text.
public struct JSONValueDecoder {
    /// Passed to the values' `init(from:)` as `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.userInfo = userInfo
    }

    /// A `T` from the tree `value`; throws `DecodingError` (see `codingErrorSummary`).
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try NodeDecoder(value: value, codingPath: [], userInfo: userInfo).decode(type)
    }

    /// A `T` from the JSON document `text`; text that is not JSON is `DecodingError.dataCorrupted`
    /// naming the byte where it stops being JSON.
    public func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        let value: JSONValue
        do { value = try JSONValue(parsing: text) } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: "not JSON: \(error)", underlyingError: error))
        }
        return try decode(type, from: value)
    }
}

/// The `Decoder` a value's `init(from:)` reads one JSON value through.
struct NodeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let storedUserInfo: [CodingUserInfoKey: any Sendable]
    var userInfo: [CodingUserInfoKey: Any] { storedUserInfo }

    init(value: JSONValue, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.value = value
        self.codingPath = codingPath
        storedUserInfo = userInfo
    }

    /// The decoder for `value` found at `key` below this one.
    func child(_ value: JSONValue, _ key: any CodingKey) -> NodeDecoder {
        NodeDecoder(value: value, codingPath: codingPath + [key], userInfo: storedUserInfo)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case let .object(members) = value else { throw mismatch([String: Any].self) }
        return KeyedDecodingContainer(KeyedNodeDecoding<Key>(decoder: self, members: members))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case let .array(elements) = value else { throw mismatch([Any].self) }
        return UnkeyedNodeDecoding(decoder: self, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleNodeDecoding(decoder: self)
    }

    /// What was found instead of a `type`: null is `valueNotFound`, as `JSONDecoder` reports it.
    func mismatch(_ type: Any.Type) -> DecodingError {
        let context = DecodingError.Context(codingPath: codingPath, debugDescription: "expected \(type), found \(value.kindDescription)")
        return value == .null ? .valueNotFound(type, context) : .typeMismatch(type, context)
    }

    func corrupted(_ description: String) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: description))
    }

    /// This decoder's value as a `T`: JSON's own scalars, Foundation's specially written types,
    /// and anything else through its `init(from:)`.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == String.self {
            guard case let .string(string) = value else { throw mismatch(T.self) }
            return string as! T
        }
        if T.self == Bool.self {
            // A null Bool is a type mismatch in `JSONDecoder` (other types' nulls: valueNotFound).
            guard case let .bool(bool) = value else { throw value == .null ? .typeMismatch(T.self, mismatch(T.self).context) : mismatch(T.self) }
            return bool as! T
        }
        if T.self == Double.self { return try number(T.self) as! T }
        if T.self == Float.self {
            let double = try number(T.self)
            let float = Float(double)
            guard float.isFinite else {
                throw corrupted("the number \(value.jsonText) does not fit in Float")
            }
            return float as! T
        }
        if let integer = T.self as? any (FixedWidthInteger & Decodable).Type { return try self.integer(integer) as! T }
        if T.self == Data.self {
            guard case let .string(string) = value else { throw mismatch(T.self) }
            guard let data = Data(base64Encoded: string) else { throw corrupted("not valid Base64") }
            return data as! T
        }
        if T.self == URL.self {
            guard case let .string(string) = value else { throw mismatch(T.self) }
            guard let url = URL(string: string) else { throw corrupted("not a valid URL") }
            return url as! T
        }
        return try T(from: self)
    }

    /// A number's value; one too large for a Double (`1e400`) is an error, as in `JSONDecoder`.
    private func number(_ type: Any.Type) throws -> Double {
        guard case let .number(double, text) = value else { throw mismatch(type) }
        guard double.isFinite else { throw corrupted("the number \(text) does not fit in \(type)") }
        return double
    }

    /// An integer of type `I`: the number's text if it is one, else its value if that is a
    /// whole number `I` holds (`1e3` reads as 1000).
    private func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        guard case let .number(double, text) = value else { throw mismatch(type) }
        if let exact = I(text) { return exact }
        guard let whole = I(exactly: double) else { throw corrupted("the number \(text) does not fit in \(I.self)") }
        return whole
    }
}

extension DecodingError {
    /// The context of any case.
    var context: Context {
        switch self {
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .keyNotFound(_, context), let .dataCorrupted(context): context
        @unknown default: Context(codingPath: [], debugDescription: "\(self)")
        }
    }
}

extension JSONValue {
    /// What the value is, for messages ("a string", "null").
    var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
