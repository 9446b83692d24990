/// A schema described at run time (for example from a user's form), turned into a
/// `GenerationSchema` with `GenerationSchema(root:dependencies:)`.
public struct DynamicGenerationSchema: Sendable {
    /// The schema's value.
    package let node: SchemaNode
    /// The name other dynamic schemas refer to this one by, for objects and choices.
    package let name: String?

    private init(_ node: SchemaNode, name: String? = nil) {
        self.node = node
        self.name = name
    }

    /// The `null` value.
    public static var null: DynamicGenerationSchema {
        DynamicGenerationSchema(SchemaNode(.null))
    }

    /// An object named `name` with these properties, in order; absent optional values are left
    /// out of generated content.
    public init(name: String, description: String? = nil, properties: [DynamicGenerationSchema.Property]) {
        self.init(name: name, description: description, representNilExplicitlyInGeneratedContent: false, properties: properties)
    }

    /// An object named `name` with these properties, in order; with `explicitNil` absent optional
    /// values are written as `null`.
    public init(
        name: String, description: String? = nil, representNilExplicitlyInGeneratedContent explicitNil: Bool,
        properties: [DynamicGenerationSchema.Property]
    ) {
        let node = SchemaNode(
            .object(properties: properties.map(\.property), representNilExplicitly: explicitNil), description: description, title: name)
        self.init(node, name: name)
    }

    /// A value of one of these schemas, named `name`.
    public init(name: String, description: String? = nil, anyOf choices: [DynamicGenerationSchema]) {
        self.init(SchemaNode(.anyOf(choices.map(\.node)), description: description, title: name), name: name)
    }

    /// One of these strings, named `name`.
    public init(name: String, description: String? = nil, anyOf choices: [String]) {
        self.init(SchemaNode(.string([.choices(choices)]), description: description, title: name), name: name)
    }

    /// An array of `itemSchema` values with a length within the bounds.
    public init(arrayOf itemSchema: DynamicGenerationSchema, minimumElements: Int? = nil, maximumElements: Int? = nil) {
        self.init(SchemaNode(.array(items: itemSchema.node, minimumCount: minimumElements, maximumCount: maximumElements)))
    }

    /// A value of the `Generable` type `type`, with these guides.
    public init<Value>(type: Value.Type, guides: [GenerationGuide<Value>] = []) where Value: Generable {
        self.init(SchemaNode(.generable(type, guides.flatMap(\.constraints))))
    }

    /// The schema named `name`, among the dependencies given to `GenerationSchema(root:dependencies:)`.
    public init(referenceTo name: String) {
        self.init(SchemaNode(.reference(name)))
    }
}

extension DynamicGenerationSchema {
    /// One property of a dynamic object schema.
    public struct Property: Sendable {
        /// The property as stored in schema nodes.
        internal let property: SchemaProperty
    }
}

extension DynamicGenerationSchema.Property {
    /// A property named `name` whose value follows `schema`.
    public init(name: String, description: String? = nil, schema: DynamicGenerationSchema, isOptional: Bool = false) {
        property = SchemaProperty(name: name, description: description, node: schema.node, isOptional: isOptional)
    }
}
