/// A value that can be written into a prompt.
public protocol PromptRepresentable {
    /// The prompt this value reads as.
    @PromptBuilder var promptRepresentation: Prompt { get }
}

extension String: PromptRepresentable {
    /// The string itself, as one prompt line.
    public var promptRepresentation: Prompt {
        var prompt = Prompt()
        prompt.components = [self]
        return prompt
    }
}

extension Array: PromptRepresentable where Element: PromptRepresentable {
    /// The elements' prompts, one after another.
    public var promptRepresentation: Prompt {
        var prompt = Prompt()
        prompt.components = flatMap { $0.promptRepresentation.components }
        return prompt
    }
}
