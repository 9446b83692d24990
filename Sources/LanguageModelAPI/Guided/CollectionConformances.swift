extension Optional where Wrapped: Generable {
    /// An optional value streams as its wrapped type's partial form.
    public typealias PartiallyGenerated = Wrapped.PartiallyGenerated
}

extension Optional: ConvertibleToGeneratedContent, PromptRepresentable, InstructionsRepresentable
where Wrapped: ConvertibleToGeneratedContent {
    /// `null` for nil, otherwise the wrapped value's content.
    public var generatedContent: GeneratedContent {
        self?.generatedContent ?? GeneratedContent(kind: .null)
    }
}

extension Array: Generable where Element: Generable {
    /// A partially generated array holds partially generated elements.
    public typealias PartiallyGenerated = [Element.PartiallyGenerated]

    /// `{"type":"array","items":<Element>}`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(primitive: "[\(Element.generationSchema.name)]", .array(items: SchemaNode(.generable(Element.self, [])), minimumCount: nil, maximumCount: nil))
    }
}

extension Array: ConvertibleToGeneratedContent where Element: ConvertibleToGeneratedContent {
    /// `.array` of the elements' content.
    public var generatedContent: GeneratedContent {
        GeneratedContent(kind: .array(map(\.generatedContent)))
    }
}

extension Array: ConvertibleFromGeneratedContent where Element: ConvertibleFromGeneratedContent {
    /// Reads an array, converting each element.
    public init(_ content: GeneratedContent) throws {
        guard case .array(let elements) = content.kind else { throw ContentConversionError.typeMismatch(expected: "an array", in: content) }
        self = try elements.map { try Element($0) }
    }
}
