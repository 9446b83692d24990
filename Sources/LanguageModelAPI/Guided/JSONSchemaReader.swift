/// Reads the JSON Schema format `JSONSchemaWriter` writes back into schema nodes. Also accepts
/// objects without `x-order` (properties then follow the key order the decoder reports, which
/// `CodableContent` sorts) and `type` arrays such as `["string", "null"]` (read as `anyOf`).
enum JSONSchemaReader {
    /// How references to definitions are spelled.
    static let referencePrefix = "#/$defs/"

    struct Failure: Error {
        var message: String
    }

    static func schema(from document: GeneratedContent) throws -> GenerationSchema {
        let fields = try self.fields(document)
        var definitions: [(name: String, node: SchemaNode)] = []
        if let defs = fields.properties["$defs"] {
            let entries = try self.fields(defs)
            for name in entries.keys { definitions.append((name, try node(entries.properties[name]!))) }
        }
        let root = try node(document)
        let title = root.title
        return GenerationSchema(name: title ?? "Schema", root: root, definitions: definitions, isNamed: title != nil)
    }

    private static func node(_ content: GeneratedContent) throws -> SchemaNode {
        let fields = try self.fields(content)
        let value = fields.properties
        var node = SchemaNode(.anyJSON)
        node.title = try value["title"].map(String.init)
        node.description = try value["description"].map(String.init)
        if let reference = value["$ref"] {
            let target = try String(reference)
            guard target.hasPrefix(referencePrefix) else { throw Failure(message: "unsupported reference \(target)") }
            node.kind = .reference(String(target.dropFirst(referencePrefix.count)))
        } else if let choices = value["anyOf"] {
            node.kind = .anyOf(try [GeneratedContent](choices).map(self.node))
        } else if let type = value["type"] {
            if case .array(let types) = type.kind {
                node.kind = .anyOf(try types.map { try self.node(GeneratedContent(object: fields.replacing("type", with: $0))) })
            } else {
                node.kind = try kind(try String(type), value)
            }
        }
        return node
    }

    private static func kind(_ type: String, _ value: [String: GeneratedContent]) throws -> SchemaNode.Kind {
        switch type {
        case "object":
            let properties = value["properties"].map { try? fields($0) } ?? nil
            let required = Set(try value["required"].map { try [String]($0) } ?? [])
            let order = try value["x-order"].map { try [String]($0) } ?? properties?.keys ?? []
            return .object(
                properties: try order.map { name in
                    guard let schema = properties?.properties[name] else { throw Failure(message: "x-order names unknown property \(name)") }
                    var property = SchemaProperty(name: name, description: nil, node: try node(schema), isOptional: !required.contains(name))
                    // A property's description is the one on its schema.
                    property.description = property.node.description
                    property.node.description = nil
                    return property
                }, representNilExplicitly: false)
        case "string":
            var constraints: [GuideConstraint] = []
            if let choices = value["enum"] { constraints.append(.choices(try [String](choices))) }
            if let pattern = value["pattern"] { constraints.append(.pattern(try String(pattern))) }
            return .string(constraints)
        case "integer":
            return .integer(minimum: try value["minimum"].map(Int.init), maximum: try value["maximum"].map(Int.init))
        case "number":
            return .number(minimum: try value["minimum"].map(Double.init), maximum: try value["maximum"].map(Double.init))
        case "boolean":
            return .boolean
        case "null":
            return .null
        case "array":
            guard let items = value["items"] else { throw Failure(message: "array without items") }
            return .array(
                items: try node(items), minimumCount: try value["minItems"].map(Int.init), maximumCount: try value["maxItems"].map(Int.init))
        default:
            throw Failure(message: "unsupported type \(type)")
        }
    }

    /// A JSON object's fields in document order.
    private static func fields(_ content: GeneratedContent) throws -> Fields {
        guard case .structure(let properties, let orderedKeys) = content.kind else {
            throw Failure(message: "expected an object, found \(content.jsonString)")
        }
        return Fields(properties: properties, keys: JSONWriter.keysInOrder(properties, orderedKeys))
    }

    private struct Fields {
        var properties: [String: GeneratedContent]
        var keys: [String]

        func replacing(_ key: String, with value: GeneratedContent) -> [(String, GeneratedContent)] {
            keys.map { ($0, $0 == key ? value : properties[$0]!) }
        }
    }
}
