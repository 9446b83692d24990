// The result builder of `DynamicInstructions` bodies: instructions, tools, arrays of tools,
// `if`/`else`, optional blocks and availability checks.

/// Builds dynamic instructions from the lines of a closure.
@resultBuilder
public struct DynamicInstructionsBuilder {
    /// A tool line: the tool becomes one of the session's tools.
    public static func buildExpression<T: Tool>(_ expression: T) -> some DynamicInstructions {
        ToolInstructions(tool: expression)
    }

    /// A dynamic instructions line, kept as is.
    public static func buildExpression<T: DynamicInstructions>(_ expression: T) -> T {
        expression
    }

    /// An array of tools: each becomes one of the session's tools.
    public static func buildExpression(_ tools: [any Tool]) -> some DynamicInstructions {
        DynamicInstructionsForEach(tools, id: \.name) { tool in
            AnyDynamicInstructions(Self.buildExpression(tool))
        }
    }

    /// Several lines, in order.
    @_disfavoredOverload
    public static func buildBlock<each Content: DynamicInstructions>(_ contents: repeat each Content)
        -> TupleDynamicInstructions<repeat each Content> {
        TupleDynamicInstructions(repeat each contents)
    }

    /// One line.
    public static func buildBlock<T: DynamicInstructions>(_ content: T) -> T {
        content
    }

    /// No lines.
    public static func buildBlock() -> EmptyDynamicInstructions {
        EmptyDynamicInstructions()
    }

    /// The `if` branch of an `if`/`else`.
    public static func buildEither<TrueContent: DynamicInstructions, FalseContent: DynamicInstructions>(
        first content: TrueContent) -> ConditionalDynamicInstructions<TrueContent, FalseContent> {
        ConditionalDynamicInstructions(.trueContent(content))
    }

    /// The `else` branch of an `if`/`else`.
    public static func buildEither<TrueContent: DynamicInstructions, FalseContent: DynamicInstructions>(
        second content: FalseContent) -> ConditionalDynamicInstructions<TrueContent, FalseContent> {
        ConditionalDynamicInstructions(.falseContent(content))
    }

    /// An `if` without `else`: nothing when the condition is false.
    public static func buildOptional<Content: DynamicInstructions>(_ content: Content?) -> Content? {
        content
    }

    /// A block guarded by `if #available`.
    public static func buildLimitedAvailability(_ content: some DynamicInstructions) -> AnyDynamicInstructions {
        AnyDynamicInstructions(content)
    }
}
