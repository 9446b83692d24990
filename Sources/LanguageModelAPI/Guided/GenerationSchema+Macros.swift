// Schema constructors that `@Generable` expansions call for what FM27's public initialisers do
// not express: enums whose cases carry values, and `@Generable(name:)`. Underscored: they are
// the macro's, not API to write by hand.

extension GenerationSchema {
    /// One case of an enum, for `init(type:description:_cases:)`.
    public struct _EnumCase: Sendable {
        package let name: String
        /// The associated values (labels, or `_0`, `_1`, ...); nil for a case without.
        let properties: [GenerationSchema.Property]?

        public init(name: String, properties: [GenerationSchema.Property]?) {
            self.name = name
            self.properties = properties
        }
    }

    /// The schema of an enum whose cases may carry values: one of the plain case names, or an
    /// object with one property, a valued case's name, holding the object of its values.
    public init(type: any Generable.Type, description: String? = nil, _cases cases: [_EnumCase]) {
        let plainNames = cases.filter { $0.properties == nil }.map(\.name)
        var choices: [SchemaNode] = plainNames.isEmpty ? [] : [SchemaNode(.string([.choices(plainNames)]))]
        for enumCase in cases {
            guard let properties = enumCase.properties else { continue }
            let values = SchemaNode(.object(properties: properties.map(\.property), representNilExplicitly: false))
            let wrapper = SchemaProperty(name: enumCase.name, description: nil, node: values, isOptional: false)
            choices.append(SchemaNode(.object(properties: [wrapper], representNilExplicitly: false)))
        }
        let name = Self.name(of: type)
        let node = SchemaNode(.anyOf(choices), description: description, title: name)
        self.init(name: name, root: node, isNamed: true, typeIdentity: ObjectIdentifier(type))
    }

    /// This schema under another type name (`@Generable(name:)`).
    public func _named(_ name: String) -> GenerationSchema {
        var root = self.root
        if root.title != nil { root.title = name }
        return GenerationSchema(name: name, root: root, definitions: definitions, isNamed: isNamed, typeIdentity: typeIdentity)
    }
}
