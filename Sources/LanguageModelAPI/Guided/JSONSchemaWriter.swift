/// Writes a resolved schema as a JSON Schema document (as `GeneratedContent`, which keeps key
/// order).
///
/// Format: `type` with `properties`/`required`/`items`/`minItems`/`maxItems`/`minimum`/`maximum`/
/// `enum`/`pattern`, `anyOf`, `$ref: "#/$defs/<name>"` with the definitions under the root's
/// `$defs`, `title` for named types, `description`, and `x-order` listing an object's properties
/// in generation order (JSON objects are unordered, and decoders may not keep key order). Objects
/// carry `additionalProperties: false`. An optional property whose nil is written explicitly is
/// required with `anyOf: [<value>, {"type":"null"}]`. Free-form content (`GeneratedContent`) is
/// `{}`. A string with several patterns keeps only its single pattern when it has one; several
/// choice lists are written as their intersection.
package enum JSONSchemaWriter {
    static package func document(_ schema: ResolvedSchema) -> GeneratedContent {
        var fields = object(schema.root)
        if !schema.definitions.isEmpty {
            fields.append(("$defs", structure(schema.definitions.map { ($0.name, GeneratedContent(object: object($0.node))) })))
        }
        return GeneratedContent(object: fields)
    }

    private static func object(_ node: SchemaNode) -> [(String, GeneratedContent)] {
        var fields: [(String, GeneratedContent)] = []
        if let title = node.title { fields.append(("title", GeneratedContent(title))) }
        if let description = node.description { fields.append(("description", GeneratedContent(description))) }
        switch node.kind {
        case .object(let properties, let explicitNil):
            fields.append(("type", GeneratedContent("object")))
            fields.append(("properties", structure(properties.map { property in
                var value = object(property.node)
                if property.isOptional, explicitNil {
                    value = [("anyOf", array([GeneratedContent(object: value), GeneratedContent(object: [("type", GeneratedContent("null"))])]))]
                }
                if let description = property.description {
                    value.removeAll { $0.0 == "description" }
                    value.insert(("description", GeneratedContent(description)), at: 0)
                }
                return (property.name, GeneratedContent(object: value))
            })))
            let required = properties.filter { !$0.isOptional || explicitNil }.map { GeneratedContent($0.name) }
            fields.append(("required", array(required)))
            fields.append(("x-order", array(properties.map { GeneratedContent($0.name) })))
            fields.append(("additionalProperties", GeneratedContent(false)))
        case .string(let constraints):
            fields.append(("type", GeneratedContent("string")))
            var choices: [String]?
            var patterns: [String] = []
            for constraint in constraints {
                if case .choices(let values) = constraint { choices = choices.map { $0.filter(values.contains) } ?? values }
                if case .pattern(let source?) = constraint { patterns.append(source) }
            }
            if let choices { fields.append(("enum", array(choices.map { GeneratedContent($0) }))) }
            if patterns.count == 1 { fields.append(("pattern", GeneratedContent(patterns[0]))) }
        case .integer(let minimum, let maximum):
            fields.append(("type", GeneratedContent("integer")))
            if let minimum { fields.append(("minimum", GeneratedContent(minimum))) }
            if let maximum { fields.append(("maximum", GeneratedContent(maximum))) }
        case .number(let minimum, let maximum):
            fields.append(("type", GeneratedContent("number")))
            if let minimum { fields.append(("minimum", GeneratedContent(minimum))) }
            if let maximum { fields.append(("maximum", GeneratedContent(maximum))) }
        case .boolean:
            fields.append(("type", GeneratedContent("boolean")))
        case .null:
            fields.append(("type", GeneratedContent("null")))
        case .array(let items, let minimum, let maximum):
            fields.append(("type", GeneratedContent("array")))
            fields.append(("items", GeneratedContent(object: object(items))))
            if let minimum { fields.append(("minItems", GeneratedContent(minimum))) }
            if let maximum { fields.append(("maxItems", GeneratedContent(maximum))) }
        case .anyOf(let choices):
            fields.append(("anyOf", array(choices.map { GeneratedContent(object: object($0)) })))
        case .reference(let name):
            fields.append(("$ref", GeneratedContent(JSONSchemaReader.referencePrefix + name)))
        case .anyJSON:
            break
        case .anyJSONObject:
            fields.append(("type", GeneratedContent("object")))
        case .generable:
            preconditionFailure("SchemaResolver expands every Generable node")
        }
        return fields
    }

    private static func array(_ elements: [GeneratedContent]) -> GeneratedContent {
        GeneratedContent(kind: .array(elements))
    }

    private static func structure(_ fields: [(String, GeneratedContent)]) -> GeneratedContent {
        GeneratedContent(object: fields)
    }
}

extension GeneratedContent {
    /// A structure with these fields in this order (later duplicates replace earlier values).
    init(object fields: [(String, GeneratedContent)]) {
        var properties: [String: GeneratedContent] = [:]
        var keys: [String] = []
        for (key, value) in fields where properties.updateValue(value, forKey: key) == nil {
            keys.append(key)
        }
        self.init(kind: .structure(properties: properties, orderedKeys: keys))
    }
}
