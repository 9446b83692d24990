/// A position in template source: 1-based line and column (columns count Unicode scalars).
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
    public var description: String { "line \(line), column \(column)" }
}

/// Everything that can go wrong loading or rendering a chat template.
///
/// Load-time problems (`syntax`, `unsupported`) are thrown by `ChatTemplate(source:)`, so a
/// template we cannot render faithfully is rejected before the first chat turn.
public enum TemplateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The source is not valid Jinja.
    case syntax(String, SourceLocation)
    /// Valid Jinja that this interpreter does not implement (a statement, filter, test, function
    /// or method), named, with where it appears.
    case unsupported(construct: String, at: SourceLocation)
    /// The template called `raise_exception(message)`.
    case raised(String)
    /// A render-time failure that Python's jinja2 would also raise: an undefined value used in an
    /// operation, a type error, a bad index.
    case runtime(String, SourceLocation?)
    /// A bound on output size, loop iterations or recursion depth was hit.
    case limitExceeded(String)
    /// Input data (a JSON conversation) could not be read.
    case invalidInput(String)

    public var description: String {
        switch self {
        case let .syntax(message, at): return "template syntax error at \(at): \(message)"
        case let .unsupported(construct, at): return "unsupported template construct \(construct) at \(at)"
        case let .raised(message): return "template raised: \(message)"
        case let .runtime(message, at?): return "template error at \(at): \(message)"
        case let .runtime(message, nil): return "template error: \(message)"
        case let .limitExceeded(message): return "template limit exceeded: \(message)"
        case let .invalidInput(message): return "invalid input: \(message)"
        }
    }
}
