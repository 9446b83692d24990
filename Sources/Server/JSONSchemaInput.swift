// A client's JSON Schema (tool parameters, `response_format`) as a `GenerationSchema`, which
// the Grammar module turns into constrained decoding. The request's JSON tree becomes schema
// content directly: no text round trip, no Foundation decoder.
import JSON
import LanguageModelAPI

enum JSONSchemaInput {
    /// The schema `value` describes. Object properties keep the client's order (written as
    /// `x-order`, which the schema reader follows); a schema the reader cannot take is a 400
    /// naming `param`.
    static func schema(_ value: JSONValue, param: String, name: String? = nil) throws(APIError) -> GenerationSchema {
        var document = ordered(value)
        if let name, document["title"] == nil, case let .object(members) = document {
            document = .object(members + [("title", .string(name))])
        }
        do {
            return try GenerationSchema(jsonSchemaDocument: content(document))
        } catch {
            throw APIError.unsupported(param, "\(param) is not a JSON Schema this server can enforce: \(error)")
        }
    }

    /// Adds `x-order` (the properties' document order) to every object schema without one.
    private static func ordered(_ value: JSONValue) -> JSONValue {
        switch value {
        case let .array(items): return .array(items.map(ordered))
        case let .object(members):
            var out = members.map { (key: $0.key, value: ordered($0.value)) }
            if case let .object(properties)? = value["properties"], value["x-order"] == nil {
                out.append((key: "x-order", value: .array(properties.map { .string($0.key) })))
            }
            return .object(out)
        default: return value
        }
    }

    /// `value` as schema content. An object's keys are sorted (a repeated key keeps its last
    /// value), as the `Codable` reading of a schema sorts them, so `$defs` come in one order
    /// whatever the client's; property order is `x-order`'s.
    static func content(_ value: JSONValue) -> GeneratedContent {
        switch value {
        case .null: return GeneratedContent(kind: .null)
        case let .bool(b): return GeneratedContent(kind: .bool(b))
        case let .number(n, _): return GeneratedContent(kind: .number(n))
        case let .string(s): return GeneratedContent(kind: .string(s))
        case let .array(items): return GeneratedContent(kind: .array(items.map(content)))
        case let .object(members):
            var properties: [String: GeneratedContent] = [:]
            for (key, member) in members { properties[key] = content(member) }
            return GeneratedContent(kind: .structure(properties: properties, orderedKeys: properties.keys.sorted()))
        }
    }
}
