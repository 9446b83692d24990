import LanguageModelAPI
import Grammar

extension GenerationSchema {
    /// The grammar constrained decoding enforces for this schema: `prefix`, one JSON value of the
    /// schema's shape, `suffix`. Throws `SchemaError` for a malformed schema and
    /// `UnsupportedGuideError` for constraints the grammar cannot express.
    func jsonGrammar(prefix: String = "", suffix: String = "") throws -> JSONGrammar {
        let resolved = try SchemaResolver.resolve(self)
        var definitions: [String: JSONShape] = [:]
        for (name, node) in resolved.definitions {
            definitions[name] = try SchemaLowering(schemaName: name).shape(of: node)
        }
        let root = try SchemaLowering(schemaName: resolved.name).shape(of: resolved.root)
        return JSONGrammar(prefix: prefix, root: root, suffix: suffix, definitions: definitions)
    }
}

/// Maps resolved schema nodes to `JSONShape`s.
struct SchemaLowering {
    /// The definition being lowered, for errors.
    let schemaName: String
    /// How deep a free-form JSON object's objects and arrays may nest, itself counted: deep
    /// enough for any answer a chat client parses, and finite (the grammar unrolls each level,
    /// about 7·2^depth nodes).
    static let freeObjectDepth = 8

    func shape(of node: SchemaNode) throws -> JSONShape {
        switch node.kind {
        case .object(let properties, let explicitNil):
            return .object(properties: try properties.map { property in
                let shape = try shape(of: property.node)
                // With explicit nil an optional key is always written, its value possibly null.
                if property.isOptional, explicitNil {
                    return JSONProperty(name: property.name, shape: .anyOf([shape, .null]))
                }
                return JSONProperty(name: property.name, shape: shape, isOptional: property.isOptional)
            })
        case .string(let constraints):
            return .string(try stringConstraint(constraints))
        case .integer(let minimum, let maximum):
            if let minimum, let maximum, minimum > maximum { throw unsupported("empty integer range \(minimum)...\(maximum)") }
            return .integer(minimum: minimum, maximum: maximum)
        case .number(let minimum, let maximum):
            if let minimum, let maximum, minimum > maximum { throw unsupported("empty number range \(minimum)...\(maximum)") }
            return .number(minimum: minimum, maximum: maximum)
        case .boolean:
            return .boolean
        case .null:
            return .null
        case .array(let items, let minimum, let maximum):
            let low = minimum ?? 0
            if low < 0 || (maximum.map { $0 < low } ?? false) {
                throw unsupported("impossible element count \(low)...\(maximum.map(String.init) ?? "")")
            }
            return .array(items: try shape(of: items), minimumCount: low, maximumCount: maximum)
        case .anyOf(let choices):
            return .anyOf(try choices.map(shape(of:)))
        case .reference(let name):
            return .reference(name)
        case .anyJSON:
            throw unsupported("free-form JSON (GeneratedContent) cannot be constrained")
        case .anyJSONObject:
            return .anyObject(maximumDepth: Self.freeObjectDepth)
        case .generable:
            preconditionFailure("SchemaResolver expands every Generable node")
        }
    }

    /// One string constraint from a node's list: several choice lists intersect; a pattern
    /// stands alone, since the grammar cannot combine it with choices or another pattern.
    private func stringConstraint(_ constraints: [GuideConstraint]) throws -> StringConstraint {
        var choices: [String]?
        var patterns: [String] = []
        for constraint in constraints {
            switch constraint {
            case .choices(let values):
                choices = choices.map { current in current.filter(values.contains) } ?? values
            case .pattern(let source?):
                patterns.append(source)
            case .pattern(nil):
                throw unsupported("a regex without a literal source (built with RegexBuilder) cannot be enforced")
            default:
                throw unsupported("guide \(constraint) does not apply to a string")
            }
        }
        switch (choices, patterns.count) {
        case (nil, 0): return .any
        case (let values?, 0):
            if values.isEmpty { throw unsupported("the string choices exclude each other") }
            return .choices(values)
        case (nil, 1): return .pattern(patterns[0])
        default: throw unsupported("a string cannot combine several patterns, or patterns with choices")
        }
    }

    private func unsupported(_ reason: String) -> UnsupportedGuideError {
        UnsupportedGuideError(schemaName: schemaName, reason: reason)
    }
}
