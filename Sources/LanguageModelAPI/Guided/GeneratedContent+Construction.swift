extension GeneratedContent {
    /// A structure with these properties, in this order. A key given twice keeps its first
    /// position and its last value.
    public init(properties: KeyValuePairs<String, any ConvertibleToGeneratedContent>, id: GenerationID? = nil) {
        self.init(properties: properties.map { ($0.key, $0.value) }, id: id, uniquingKeysWith: { _, new in new })
    }

    /// A structure with these properties, in order of first appearance; `combine` merges the
    /// existing and the new value of a repeated key.
    public init<S>(
        properties: S, id: GenerationID? = nil,
        uniquingKeysWith combine: (GeneratedContent, GeneratedContent) throws -> some ConvertibleToGeneratedContent
    ) rethrows where S: Sequence, S.Element == (String, any ConvertibleToGeneratedContent) {
        var values: [String: GeneratedContent] = [:]
        var orderedKeys: [String] = []
        for (key, value) in properties {
            let content = value.generatedContent
            if let existing = values[key] {
                values[key] = try combine(existing, content).generatedContent
            } else {
                values[key] = content
                orderedKeys.append(key)
            }
        }
        self.init(kind: .structure(properties: values, orderedKeys: orderedKeys), id: id)
    }

    /// An array of these elements.
    public init<S>(elements: S, id: GenerationID? = nil) where S: Sequence, S.Element == any ConvertibleToGeneratedContent {
        self.init(kind: .array(elements.map { $0.generatedContent }), id: id)
    }

    /// The content of a value.
    public init(_ value: some ConvertibleToGeneratedContent) {
        self = value.generatedContent
    }

    /// The content of a value, with this id.
    public init(_ value: some ConvertibleToGeneratedContent, id: GenerationID) {
        self = value.generatedContent
        self.id = id
    }
}
