/// The shape guided generation is constrained to: an object with typed, guided properties, a
/// choice of strings or types, or a primitive, plus the named definitions it refers to.
public struct GenerationSchema: Sendable {
    /// The schema's type name.
    public var name: String {
        typeName
    }

    /// Backing store of `name`.
    internal let typeName: String
    /// The root value.
    package let root: SchemaNode
    /// Named definitions given explicitly (by `init(root:dependencies:)` or decoding); those of
    /// `Generable` properties are found by `SchemaResolver`.
    package let definitions: [(name: String, node: SchemaNode)]
    /// Whether other schemas refer to this one by name (`$ref`) rather than inlining it: true for
    /// objects and choices, which are user types that may recurse; false for primitives and
    /// arrays.
    internal let isNamed: Bool
    /// The Swift type the schema was made for, to tell two different types with one name apart.
    internal let typeIdentity: ObjectIdentifier?

    internal init(
        name: String, root: SchemaNode, definitions: [(name: String, node: SchemaNode)] = [], isNamed: Bool,
        typeIdentity: ObjectIdentifier? = nil
    ) {
        self.typeName = name
        self.root = root
        self.definitions = definitions
        self.isNamed = isNamed
        self.typeIdentity = typeIdentity
    }

    /// The schema of a primitive (or an array), inlined wherever it is used.
    internal init(primitive name: String, _ kind: SchemaNode.Kind) {
        self.init(name: name, root: SchemaNode(kind), isNamed: false)
    }

    /// Any JSON object (any keys, any values, nesting bounded by the lowering): what the server's
    /// `response_format` `json_object` and Ollama's `format: "json"` constrain an answer to.
    package static let anyJSONObject = GenerationSchema(primitive: "JSONObject", .anyJSONObject)

    /// The name `type` is known by in schemas.
    static package func name(of type: any Generable.Type) -> String {
        String(describing: type)
    }

    /// An object schema for `type` with these properties, in order; absent optional values are
    /// left out of generated content.
    public init(type: any Generable.Type, description: String? = nil, properties: [GenerationSchema.Property]) {
        self.init(type: type, description: description, representNilExplicitlyInGeneratedContent: false, properties: properties)
    }

    /// An object schema for `type` with these properties, in order; with `explicitNil` absent
    /// optional values are written as `null`.
    public init(
        type: any Generable.Type, description: String? = nil, representNilExplicitlyInGeneratedContent explicitNil: Bool,
        properties: [GenerationSchema.Property]
    ) {
        let name = Self.name(of: type)
        let node = SchemaNode(
            .object(properties: properties.map(\.property), representNilExplicitly: explicitNil), description: description, title: name)
        self.init(name: name, root: node, isNamed: true, typeIdentity: ObjectIdentifier(type))
    }

    /// A schema for `type` whose values are one of these strings (an enum without payloads).
    public init(type: any Generable.Type, description: String? = nil, anyOf choices: [String]) {
        let name = Self.name(of: type)
        let node = SchemaNode(.string([.choices(choices)]), description: description, title: name)
        self.init(name: name, root: node, isNamed: true, typeIdentity: ObjectIdentifier(type))
    }

    /// A schema for `type` whose values are a value of one of these types.
    public init(type: any Generable.Type, description: String? = nil, anyOf types: [any Generable.Type]) {
        let name = Self.name(of: type)
        let node = SchemaNode(.anyOf(types.map { SchemaNode(.generable($0, [])) }), description: description, title: name)
        self.init(name: name, root: node, isNamed: true, typeIdentity: ObjectIdentifier(type))
    }
}
