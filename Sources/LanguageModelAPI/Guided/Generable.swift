/// A type guided generation can produce: it has a schema the decoder is constrained to, converts
/// from and to generated content, and has a partially generated form for streaming.
///
/// The `@Generable` macro writes the conformance: a `generationSchema` listing the properties
/// with their guides, `init(_:)` reading each property with `value(_:forProperty:)`,
/// `generatedContent` building `GeneratedContent(properties:)`, and a `PartiallyGenerated` type
/// whose properties are optional. A conformance may also be written by hand with those members.
public protocol Generable: ConvertibleFromGeneratedContent, ConvertibleToGeneratedContent {
    /// The form of the value while it is still being generated; by default the type itself.
    associatedtype PartiallyGenerated: ConvertibleFromGeneratedContent = Self

    /// The schema generation is constrained to.
    static var generationSchema: GenerationSchema { get }
}

extension Generable {
    /// This complete value in its partially generated form. Traps if `PartiallyGenerated` cannot
    /// read this type's own content, which is a broken conformance, not a runtime condition.
    public func asPartiallyGenerated() -> PartiallyGenerated {
        if let same = self as? PartiallyGenerated { return same }
        do {
            return try PartiallyGenerated(generatedContent)
        } catch {
            preconditionFailure("\(PartiallyGenerated.self) cannot read the content of \(Self.self): \(error)")
        }
    }
}

extension Generable {
    /// The value's JSON.
    public var promptRepresentation: Prompt {
        return Prompt(generatedContent.jsonString)
    }

    /// The value's JSON.
    public var instructionsRepresentation: Instructions {
        return Instructions(generatedContent.jsonString)
    }
}
