/// A type that can be built from generated content (what guided generation decodes into).
public protocol ConvertibleFromGeneratedContent: SendableMetatype {
    /// The value the content describes; throws when the content has the wrong shape.
    init(_ content: GeneratedContent) throws
}

/// A type that can describe itself as generated content, and so be written into prompts and
/// instructions as JSON.
public protocol ConvertibleToGeneratedContent: InstructionsRepresentable, PromptRepresentable {
    /// This value as generated content.
    var generatedContent: GeneratedContent { get }
}

extension ConvertibleToGeneratedContent {
    /// The value's JSON.
    public var instructionsRepresentation: Instructions {
        return Instructions(generatedContent.jsonString)
    }

    /// The value's JSON.
    public var promptRepresentation: Prompt {
        return Prompt(generatedContent.jsonString)
    }
}
