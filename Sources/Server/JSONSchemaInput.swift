// A client's JSON Schema (tool parameters, `response_format`) as a `GenerationSchema`, which
// the Grammar module turns into constrained decoding.
import Foundation
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
            return try JSONDecoder().decode(GenerationSchema.self, from: Data(document.jsonText.utf8))
        } catch {
            throw APIError.unsupported(param, "\(param) is not a JSON Schema this server can enforce: \(describe(error))")
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

    private static func describe(_ error: any Error) -> String {
        if case let DecodingError.dataCorrupted(context) = error { return context.debugDescription }
        return "\(error)"
    }
}
