/// One node of a schema, before or after resolution.
///
/// Schemas of `Generable` types name the types of their properties instead of embedding those
/// types' schemas (`.generable`), so building a schema never recurses and recursive types
/// (`struct Node { var children: [Node] }`) are fine. `SchemaResolver` expands `.generable` nodes
/// into inline nodes and `$defs` references when a schema is encoded or lowered.
package struct SchemaNode: Sendable {
    /// What values the node allows.
    package var kind: Kind
    /// Shown to the model next to the node.
    var description: String?
    /// The type name of a named object or choice (`title` in JSON Schema).
    var title: String?

    init(_ kind: Kind, description: String? = nil, title: String? = nil) {
        self.kind = kind
        self.description = description
        self.title = title
    }

    package indirect enum Kind: Sendable {
        /// An object with these properties, in order. With `representNilExplicitly` absent
        /// optional values are written as `null` instead of being left out.
        case object(properties: [SchemaProperty], representNilExplicitly: Bool)
        /// A string meeting every constraint listed (`.choices` and `.pattern` constraints only).
        case string([GuideConstraint])
        /// An integer within the bounds.
        case integer(minimum: Int?, maximum: Int?)
        /// A number within the bounds.
        case number(minimum: Double?, maximum: Double?)
        case boolean
        case null
        /// An array with a length within the bounds.
        case array(items: SchemaNode, minimumCount: Int?, maximumCount: Int?)
        /// Any one of these nodes.
        case anyOf([SchemaNode])
        /// The definition of this name.
        case reference(String)
        /// The schema of a `Generable` type with these guides applied; only before resolution.
        case generable(any Generable.Type, [GuideConstraint])
        /// Any JSON value (`GeneratedContent`).
        case anyJSON
        /// Any JSON object: any keys, any values (OpenAI's `response_format` `json_object`).
        case anyJSONObject
    }
}

/// One property of an object node.
package struct SchemaProperty: Sendable {
    package var name: String
    var description: String?
    package var node: SchemaNode
    /// Whether the property may be absent (or `null`, when nil is represented explicitly).
    package var isOptional: Bool
}
