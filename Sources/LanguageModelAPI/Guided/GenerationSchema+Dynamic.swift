extension GenerationSchema {
    /// A schema whose value follows `root`, where `.init(referenceTo:)` nodes name the root, one
    /// of `dependencies`, or a named schema nested in either. Throws `SchemaError` for two dependencies with one name, two properties
    /// with one name, a choice without options, or a reference to a name not given.
    public init(root: DynamicGenerationSchema, dependencies: [DynamicGenerationSchema]) throws {
        let rootName = root.name ?? "Root"
        var definitions: [(name: String, node: SchemaNode)] = []
        var defined = Set<String>()
        for dependency in dependencies {
            // An unnamed dependency (an array or a primitive) cannot be referred to.
            guard let name = dependency.name else { continue }
            guard defined.insert(name).inserted, name != root.name else {
                throw SchemaError.duplicateType(
                    schema: root.name, type: name, context: .init(debugDescription: "Two dependencies are named '\(name)'."))
            }
            definitions.append((name, dependency.node))
        }

        var references = Set<String>()
        var nested: [String: SchemaNode] = [:]
        for (name, node) in [(rootName, root.node)] + definitions {
            try SchemaValidation.check(node, in: name, references: &references)
            Self.collectNamed(inside: node, into: &nested)
        }
        // A named schema nested inline (not a dependency) may be referred to as well.
        for name in references.sorted() where !defined.contains(name) && name != root.name {
            guard let node = nested[name] else { continue }
            definitions.append((name, node))
            defined.insert(name)
        }
        let undefined = references.subtracting(defined).subtracting(root.name.map { [$0] } ?? [])
        guard undefined.isEmpty else {
            throw SchemaError.undefinedReferences(
                schema: root.name, references: undefined.sorted(),
                context: .init(debugDescription: "No dependency is named \(undefined.sorted().joined(separator: ", "))."))
        }
        // A root that refers to itself is also a definition, so `$ref` can reach it.
        if let name = root.name, references.contains(name) {
            definitions.insert((name, root.node), at: 0)
        }
        self.init(name: rootName, root: root.node, definitions: definitions, isNamed: root.name != nil)
    }

    /// The named nodes below `node` (not `node` itself), the first of each name.
    private static func collectNamed(inside node: SchemaNode, into named: inout [String: SchemaNode]) {
        let children: [SchemaNode]
        switch node.kind {
        case .object(let properties, _): children = properties.map(\.node)
        case .array(let items, _, _): children = [items]
        case .anyOf(let choices): children = choices
        case .string, .integer, .number, .boolean, .null, .reference, .generable, .anyJSON, .anyJSONObject: children = []
        }
        for child in children {
            if let title = child.title, named[title] == nil { named[title] = child }
            collectNamed(inside: child, into: &named)
        }
    }
}

/// Structural checks shared by dynamic schemas, decoding and lowering.
enum SchemaValidation {
    /// Throws for duplicate properties and empty choices in `node` (not following references or
    /// `Generable` types), and collects the names it refers to. `schema` names the enclosing
    /// definition for error messages.
    static func check(_ node: SchemaNode, in schema: String, references: inout Set<String>) throws {
        let owner = node.title ?? schema
        switch node.kind {
        case .object(let properties, _):
            var names = Set<String>()
            for property in properties {
                guard names.insert(property.name).inserted else {
                    throw GenerationSchema.SchemaError.duplicateProperty(
                        schema: owner, property: property.name,
                        context: .init(debugDescription: "'\(owner)' lists '\(property.name)' twice."))
                }
                try check(property.node, in: owner, references: &references)
            }
        case .anyOf(let choices):
            guard !choices.isEmpty else { throw emptyChoices(owner) }
            for choice in choices { try check(choice, in: owner, references: &references) }
        case .string(let constraints):
            for case .choices(let values) in constraints where values.isEmpty { throw emptyChoices(owner) }
        case .array(let items, _, _):
            try check(items, in: owner, references: &references)
        case .reference(let name):
            references.insert(name)
        case .integer, .number, .boolean, .null, .generable, .anyJSON, .anyJSONObject:
            break
        }
    }

    private static func emptyChoices(_ schema: String) -> GenerationSchema.SchemaError {
        .emptyTypeChoices(schema: schema, context: .init(debugDescription: "'\(schema)' has no choices."))
    }
}
