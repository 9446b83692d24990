// Apple's requests, prompts, responses and channel actions carry metadata dictionaries of
// `any Sendable & Codable & Equatable`. Swift cannot synthesise `==` or `Codable` for them, so
// these helpers open the existentials.
import Foundation

/// Metadata as FM27 spells it.
public typealias MetadataValues = [String: any Sendable & Codable & Equatable]

/// Whether two metadata dictionaries hold the same keys with equal values of the same types.
func metadataEqual(_ a: MetadataValues, _ b: MetadataValues) -> Bool {
    guard a.count == b.count else { return false }
    for (key, left) in a {
        guard let right = b[key], sameValue(left, right) else { return false }
    }
    return true
}

func sameValue<T: Equatable>(_ left: T, _ right: any Equatable) -> Bool {
    guard let right = right as? T else { return false }
    return left == right
}

/// A metadata value after a round trip through `Codable`: the JSON it was encoded as. Values of
/// the caller's own types come back as this (their type is not recorded in the JSON).
public enum MetadataJSONValue: Sendable, Codable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([MetadataJSONValue])
    case object([String: MetadataJSONValue])

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([MetadataJSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: MetadataJSONValue].self)) }
    }

    /// Encodes as the JSON value it is.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case let .bool(b): try c.encode(b)
        case let .number(n): try c.encode(n)
        case let .string(s): try c.encode(s)
        case let .array(a): try c.encode(a)
        case let .object(o): try c.encode(o)
        }
    }
}

/// Encodes metadata values through their own `Encodable` conformance.
struct EncodableMetadata: Encodable {
    let values: MetadataValues
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        for (key, value) in values { try c.encode(value, forKey: AnyKey(key)) }
    }
}

/// Metadata decoded from JSON: strings, booleans and numbers come back as `String`, `Bool` and
/// `Int` (integral values) or `Double`; arrays and objects as `MetadataJSONValue`.
func metadataValues(_ decoded: [String: MetadataJSONValue]?) -> MetadataValues {
    guard let decoded else { return [:] }
    return decoded.mapValues { value -> any Sendable & Codable & Equatable in
        switch value {
        case let .string(s): return s
        case let .bool(b): return b
        case let .number(n): return n.rounded() == n && abs(n) < 9e15 ? Int(n) : n
        default: return value
        }
    }
}

/// A coding key made at run time.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
