// Typed reads of a request body's fields: each wrong type or value becomes a 400 naming the field.
import JSON

/// A JSON object being read field by field; `path` prefixes the names in errors (`messages[2]`).
struct RequestFields {
    let members: [(key: String, value: JSONValue)]
    let path: String

    /// The object `value` (a 400 for anything else).
    init(_ value: JSONValue, path: String) throws(APIError) {
        guard case let .object(members) = value else {
            throw APIError.invalid(path.isEmpty ? "body" : path, "\(path.isEmpty ? "the request body" : path) must be a JSON object")
        }
        self.members = members
        self.path = path
    }

    /// Parses `body` as one JSON object.
    static func parse(_ body: [UInt8]) throws(APIError) -> RequestFields {
        guard let text = String(validating: body, as: UTF8.self) else {
            throw APIError(status: 400, "the request body is not UTF-8 text", code: "invalid_json")
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: text)
        } catch {
            throw APIError(status: 400, "the request body is not valid JSON: \(error)", code: "invalid_json")
        }
        return try RequestFields(value, path: "")
    }

    func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// The field's value; nil when absent or JSON null (OpenAI's clients send null for unset).
    subscript(key: String) -> JSONValue? {
        guard let value = members.last(where: { $0.key == key })?.value, value != .null else { return nil }
        return value
    }

    var keys: [String] { members.map(\.key) }

    func string(_ key: String) throws(APIError) -> String? {
        guard let value = self[key] else { return nil }
        guard case let .string(s) = value else { throw APIError.invalid(name(key), "\(name(key)) must be a string") }
        return s
    }

    func bool(_ key: String) throws(APIError) -> Bool? {
        guard let value = self[key] else { return nil }
        guard case let .bool(b) = value else { throw APIError.invalid(name(key), "\(name(key)) must be true or false") }
        return b
    }

    func number(_ key: String, in range: ClosedRange<Double>) throws(APIError) -> Double? {
        guard let value = self[key] else { return nil }
        guard case let .number(x, _) = value else { throw APIError.invalid(name(key), "\(name(key)) must be a number") }
        guard range.contains(x) else {
            throw APIError.invalid(name(key), "\(name(key)) must be between \(range.lowerBound) and \(range.upperBound), got \(x)")
        }
        return x
    }

    func integer(_ key: String, in range: ClosedRange<Int>) throws(APIError) -> Int? {
        guard let value = self[key] else { return nil }
        guard case let .number(x, _) = value, x == x.rounded(), abs(x) < 9e18 else {
            throw APIError.invalid(name(key), "\(name(key)) must be an integer")
        }
        guard range.contains(Int(x)) else {
            throw APIError.invalid(name(key), "\(name(key)) must be between \(range.lowerBound) and \(range.upperBound), got \(Int(x))")
        }
        return Int(x)
    }

    func array(_ key: String) throws(APIError) -> [JSONValue]? {
        guard let value = self[key] else { return nil }
        guard case let .array(a) = value else { throw APIError.invalid(name(key), "\(name(key)) must be an array") }
        return a
    }

    func object(_ key: String) throws(APIError) -> RequestFields? {
        guard let value = self[key] else { return nil }
        return try RequestFields(value, path: name(key))
    }

    /// Rejects fields outside `known`, so a parameter this server ignores never passes silently.
    func rejectUnknown(_ known: Set<String>) throws(APIError) {
        if let unknown = keys.first(where: { !known.contains($0) }) {
            throw APIError.unsupported(name(unknown), "\(name(unknown)) is not a supported parameter")
        }
    }
}
