/// A JSON-like value handed to a template: messages, tools and extra variables.
///
/// Objects keep their keys in insertion order, because `tojson` prints them in that order
/// (Python dicts do too) and the rendered prompt must match Hugging Face's byte for byte.
public enum TemplateValue: Sendable, Equatable {
    case none
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([TemplateValue])
    case object(TemplateObject)

    /// The value under `key` when this is an object.
    public subscript(key: String) -> TemplateValue? {
        if case let .object(object) = self { return object[key] }
        return nil
    }

    /// The string payload, if this is a string.
    public var stringValue: String? {
        if case let .string(s) = self { return s }
        return nil
    }
}

/// An insertion-ordered string-keyed dictionary of `TemplateValue`s.
public struct TemplateObject: Sendable, Equatable {
    /// Keys in insertion order.
    public private(set) var keys: [String] = []
    private var storage: [String: TemplateValue] = [:]

    public init() {}

    /// Builds an object from pairs; a repeated key keeps its first position and last value.
    public init(_ pairs: [(String, TemplateValue)]) {
        for (key, value) in pairs { self[key] = value }
    }

    public subscript(key: String) -> TemplateValue? {
        get { storage[key] }
        set {
            if let newValue {
                if storage.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if storage.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    /// Key-value pairs in order.
    public var pairs: [(String, TemplateValue)] { keys.map { ($0, storage[$0]!) } }
    public var count: Int { keys.count }

    public static func == (a: TemplateObject, b: TemplateObject) -> Bool {
        a.keys == b.keys && a.storage == b.storage
    }
}

extension TemplateValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(arrayLiteral elements: TemplateValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, TemplateValue)...) { self = .object(TemplateObject(elements)) }
    public init(nilLiteral: ()) { self = .none }
}
