import JSON

extension GeneratedContent {
    /// Content read from JSON text, or from a prefix of it as produced mid-stream (then
    /// `isComplete` is false). A cut string keeps its characters, a cut number the digits that
    /// form a number (`12.` reads 12), a cut literal the only value it can become (`tr` reads
    /// `true`), a key without a value yet is left out, and text with no value yet (whitespace,
    /// a lone `-`) reads as an incomplete `null`. Throws `ParsingError` for text that is not a
    /// JSON prefix.
    public init(json: String) throws {
        do {
            self = try JSONReader.read(json, with: ContentBuilder(), acceptingPrefix: true)
                ?? GeneratedContent(kind: .null, isComplete: false)
        } catch {
            throw ParsingError(rawContent: json, underlyingError: error, debugDescription: error.description)
        }
    }

    /// The content as compact JSON, properties in order; `GeneratedContent(json:)` reads it back
    /// to equal content.
    public var jsonString: String {
        JSONWriter.write(self)
    }
}

/// Builds `GeneratedContent` for the JSON reader, completeness included.
private struct ContentBuilder: JSONValueBuilder {
    func null(complete: Bool) -> GeneratedContent { GeneratedContent(kind: .null, isComplete: complete) }
    func bool(_ value: Bool, complete: Bool) -> GeneratedContent { GeneratedContent(kind: .bool(value), isComplete: complete) }
    func number(_ text: String, _ value: Double, complete: Bool) -> GeneratedContent {
        GeneratedContent(kind: .number(value), isComplete: complete)
    }
    func string(_ value: String, complete: Bool) -> GeneratedContent { GeneratedContent(kind: .string(value), isComplete: complete) }
    func array(_ elements: [GeneratedContent], complete: Bool) -> GeneratedContent {
        GeneratedContent(kind: .array(elements), isComplete: complete)
    }
    /// A repeated key keeps its first position and takes the later value.
    func object(_ members: [(key: String, value: GeneratedContent)], complete: Bool) -> GeneratedContent {
        var properties: [String: GeneratedContent] = [:]
        var orderedKeys: [String] = []
        for (key, value) in members {
            if properties.updateValue(value, forKey: key) == nil { orderedKeys.append(key) }
        }
        return GeneratedContent(kind: .structure(properties: properties, orderedKeys: orderedKeys), isComplete: complete)
    }
}
