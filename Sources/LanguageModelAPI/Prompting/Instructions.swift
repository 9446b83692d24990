/// Instructions: what the model is told to be and do for a whole session (the system message),
/// built from strings, arrays, generated content or an `@InstructionsBuilder` block.
public struct Instructions: Sendable {
    /// The rendered pieces, in order; one piece per builder line or representable value.
    internal var components: [String]

    /// Empty instructions (what an `if` without `else` in a builder contributes when false).
    internal init() {
        components = []
    }

    /// Joins the representations of several values, in order (what `buildBlock` produces).
    internal init<each I: InstructionsRepresentable>(joining components: repeat each I) {
        var pieces: [String] = []
        for component in repeat each components {
            pieces += component.instructionsRepresentation.components
        }
        self.components = pieces
    }

    /// The instructions of one value.
    public init(_ content: some InstructionsRepresentable) {
        components = content.instructionsRepresentation.components
    }

    /// Instructions built line by line.
    public init(@InstructionsBuilder _ content: () throws -> Instructions) rethrows {
        self = try content()
    }

    /// The text the model sees. Builder lines are joined with one newline, the same rule as
    /// `Prompt.text`.
    package var text: String {
        components.joined(separator: "\n")
    }
}

extension Instructions: InstructionsRepresentable {
    /// The instructions themselves.
    public var instructionsRepresentation: Instructions { return self }
}
