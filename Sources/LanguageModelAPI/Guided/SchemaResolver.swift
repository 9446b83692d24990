/// A schema with every `Generable` type expanded: primitives inline, named types as
/// `$defs` entries referred to by name. What encoding and lowering work from.
package struct ResolvedSchema {
    package var name: String
    package var root: SchemaNode
    /// Definitions in the order they were first reached.
    package var definitions: [(name: String, node: SchemaNode)]
}

/// Expands `.generable` nodes (see `SchemaNode`), applies their guides, and checks the result:
/// throws `GenerationSchema.SchemaError` for clashing names, duplicate properties, empty choices
/// and undefined references, and `UnsupportedGuideError` for guides that do not fit their value.
package struct SchemaResolver {
    private var definitions: [String: SchemaNode] = [:]
    private var order: [String] = []
    /// The Swift type behind each name seen (nil for dynamic and decoded definitions).
    private var owners: [String: ObjectIdentifier?] = [:]
    /// The definition being resolved, for error messages.
    private var current: String

    private init(current: String) {
        self.current = current
    }

    static package func resolve(_ schema: GenerationSchema) throws -> ResolvedSchema {
        var resolver = SchemaResolver(current: schema.name)
        if schema.isNamed { resolver.owners[schema.name] = schema.typeIdentity }
        let root = try resolver.resolve(schema.root)
        for (name, node) in schema.definitions { try resolver.defineExplicit(name, node) }

        var references = Set<String>()
        try SchemaValidation.check(root, in: schema.name, references: &references)
        for name in resolver.order {
            try SchemaValidation.check(resolver.definitions[name]!, in: name, references: &references)
        }
        // A named root that its own properties refer to (a recursive type) is also a definition.
        if schema.isNamed, references.contains(schema.name), resolver.definitions[schema.name] == nil {
            resolver.definitions[schema.name] = root
            resolver.order.insert(schema.name, at: 0)
        }
        let undefined = references.filter { resolver.definitions[$0] == nil }.sorted()
        guard undefined.isEmpty else {
            throw GenerationSchema.SchemaError.undefinedReferences(
                schema: schema.name, references: undefined,
                context: .init(debugDescription: "Nothing defines \(undefined.joined(separator: ", "))."))
        }
        return ResolvedSchema(name: schema.name, root: root, definitions: resolver.order.map { ($0, resolver.definitions[$0]!) })
    }

    private mutating func resolve(_ node: SchemaNode) throws -> SchemaNode {
        var resolved = node
        switch node.kind {
        case .object(let properties, let explicitNil):
            var out: [SchemaProperty] = []
            for var property in properties {
                property.node = try resolve(property.node)
                out.append(property)
            }
            resolved.kind = .object(properties: out, representNilExplicitly: explicitNil)
        case .array(let items, let minimum, let maximum):
            resolved.kind = .array(items: try resolve(items), minimumCount: minimum, maximumCount: maximum)
        case .anyOf(let choices):
            var out: [SchemaNode] = []
            for choice in choices { out.append(try resolve(choice)) }
            resolved.kind = .anyOf(out)
        case .generable(let type, let constraints):
            return try expand(type.generationSchema, constraints: constraints)
        case .string, .integer, .number, .boolean, .null, .reference, .anyJSON, .anyJSONObject:
            break
        }
        return resolved
    }

    /// A use of `schema` with `constraints`: a reference for named types, the node otherwise.
    private mutating func expand(_ schema: GenerationSchema, constraints: [GuideConstraint]) throws -> SchemaNode {
        guard schema.isNamed else {
            for (name, node) in schema.definitions { try defineExplicit(name, node) }
            var node = try resolve(schema.root)
            for constraint in constraints { try apply(constraint, to: &node) }
            return node
        }
        guard constraints.isEmpty else {
            throw UnsupportedGuideError(schemaName: current, reason: "guides cannot constrain the named type '\(schema.name)'")
        }
        if let owner = owners[schema.name] {
            if let owner, let identity = schema.typeIdentity, owner != identity {
                throw GenerationSchema.SchemaError.duplicateType(
                    schema: current, type: schema.name,
                    context: .init(debugDescription: "Two different types are both named '\(schema.name)'."))
            }
        } else {
            owners[schema.name] = schema.typeIdentity
            order.append(schema.name)
            let outer = current
            current = schema.name
            definitions[schema.name] = try resolve(schema.root)
            for (name, node) in schema.definitions { try defineExplicit(name, node) }
            current = outer
        }
        return SchemaNode(.reference(schema.name))
    }

    /// A definition given by name (dynamic schemas, decoding); the first one of a name wins.
    private mutating func defineExplicit(_ name: String, _ node: SchemaNode) throws {
        guard owners[name] == nil else { return }
        owners[name] = .some(nil)
        order.append(name)
        definitions[name] = try resolve(node)
    }

    /// Narrows `node` by one guide constraint.
    private func apply(_ constraint: GuideConstraint, to node: inout SchemaNode) throws {
        switch (constraint, node.kind) {
        case (.choices, .string(let constraints)), (.pattern, .string(let constraints)):
            node.kind = .string(constraints + [constraint])
        case (.integerBounds(let low, let high), .integer(let minimum, let maximum)):
            node.kind = .integer(minimum: Self.tighter(minimum, low, by: max), maximum: Self.tighter(maximum, high, by: min))
        case (.numberBounds(let low, let high), .number(let minimum, let maximum)):
            node.kind = .number(minimum: Self.tighter(minimum, low, by: max), maximum: Self.tighter(maximum, high, by: min))
        case (.count(let low, let high), .array(let items, let minimum, let maximum)):
            node.kind = .array(
                items: items, minimumCount: Self.tighter(minimum, low, by: max), maximumCount: Self.tighter(maximum, high, by: min))
        case (.element(let constraints), .array(var items, let minimum, let maximum)):
            for inner in constraints { try apply(inner, to: &items) }
            node.kind = .array(items: items, minimumCount: minimum, maximumCount: maximum)
        default:
            throw UnsupportedGuideError(schemaName: current, reason: "guide \(constraint) does not apply to \(node.kind)")
        }
    }

    /// The stricter of two optional bounds.
    private static func tighter<T: Comparable>(_ a: T?, _ b: T?, by pick: (T, T) -> T) -> T? {
        guard let a else { return b }
        guard let b else { return a }
        return pick(a, b)
    }
}
