/// A prompt: the text a caller sends to the model for one turn, built from strings, arrays,
/// generated content or a `@PromptBuilder` block.
public struct Prompt: Sendable {
    /// The rendered pieces, in order; one piece per builder line or representable value.
    internal var components: [String]

    /// An empty prompt (what an `if` without `else` in a builder contributes when false).
    internal init() {
        components = []
    }

    /// Joins the representations of several values, in order (what `buildBlock` produces).
    internal init<each P: PromptRepresentable>(joining components: repeat each P) {
        var pieces: [String] = []
        for component in repeat each components {
            pieces += component.promptRepresentation.components
        }
        self.components = pieces
    }

    /// The prompt of one value.
    public init(_ content: some PromptRepresentable) {
        components = content.promptRepresentation.components
    }

    /// A prompt built line by line.
    public init(@PromptBuilder _ content: () throws -> Prompt) rethrows {
        self = try content()
    }

    /// The text the model sees. Builder lines are joined with one newline, so
    /// `Prompt { "a"; "b" }` reads `"a\nb"`: each line of a block is its own line of text.
    package var text: String {
        components.joined(separator: "\n")
    }
}

extension Prompt: PromptRepresentable {
    /// The prompt itself. Witnesses of this requirement take on its result builder unless they
    /// `return` explicitly; as a builder body, `self` would rebuild itself forever.
    public var promptRepresentation: Prompt { return self }
}
