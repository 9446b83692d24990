extension GenerationSchema {
    /// One property of an object schema: a name, a type and the guides on its value.
    public struct Property: Sendable {
        /// The property as stored in schema nodes.
        internal let property: SchemaProperty
    }
}

extension GenerationSchema.Property {
    /// A required property of a `Generable` type.
    public init<Value>(name: String, description: String? = nil, type: Value.Type, guides: [GenerationGuide<Value>] = [])
    where Value: Generable {
        property = SchemaProperty(
            name: name, description: description, node: SchemaNode(.generable(type, guides.flatMap(\.constraints))), isOptional: false)
    }

    /// An optional property of a `Generable` type.
    public init<Value>(name: String, description: String? = nil, type: Value?.Type, guides: [GenerationGuide<Value>] = [])
    where Value: Generable {
        property = SchemaProperty(
            name: name, description: description, node: SchemaNode(.generable(Value.self, guides.flatMap(\.constraints))), isOptional: true)
    }

    /// A required string property matching every regex in `guides`.
    public init<RegexOutput>(name: String, description: String? = nil, type: String.Type, guides: [Regex<RegexOutput>] = []) {
        property = SchemaProperty(
            name: name, description: description, node: SchemaNode(.generable(String.self, guides.map { .pattern($0._literalPattern) })),
            isOptional: false)
    }

    /// An optional string property matching every regex in `guides`.
    public init<RegexOutput>(name: String, description: String? = nil, type: String?.Type, guides: [Regex<RegexOutput>] = []) {
        property = SchemaProperty(
            name: name, description: description, node: SchemaNode(.generable(String.self, guides.map { .pattern($0._literalPattern) })),
            isOptional: true)
    }
}
