/// Builds a `Prompt` from the lines of a closure: strings, representable values, `if`/`else`,
/// `for` loops and availability checks.
@resultBuilder
public struct PromptBuilder {
    /// Joins the block's lines, in order.
    public static func buildBlock<each P: PromptRepresentable>(_ components: repeat each P) -> Prompt {
        Prompt(joining: repeat each components)
    }

    /// Joins the prompts of a `for` loop's iterations.
    public static func buildArray(_ prompts: [some PromptRepresentable]) -> Prompt {
        Prompt(prompts)
    }

    /// The `if` branch of an `if`/`else`.
    public static func buildEither(first component: some PromptRepresentable) -> Prompt {
        Prompt(component)
    }

    /// The `else` branch of an `if`/`else`.
    public static func buildEither(second component: some PromptRepresentable) -> Prompt {
        Prompt(component)
    }

    /// An `if` without `else`: nothing when the condition is false.
    public static func buildOptional(_ component: Prompt?) -> Prompt {
        component ?? Prompt()
    }

    /// A block guarded by `if #available`.
    public static func buildLimitedAvailability(_ prompt: some PromptRepresentable) -> Prompt {
        Prompt(prompt)
    }

    /// A representable line, kept as is.
    @_disfavoredOverload
    public static func buildExpression<P: PromptRepresentable>(_ expression: P) -> P {
        expression
    }

    /// A prompt line.
    public static func buildExpression(_ expression: Prompt) -> Prompt {
        expression
    }

    /// A line that is not representable. Apple's builder accepts it and traps at run time; here
    /// it is a compile-time error instead, so the overload set (and every valid program) is the
    /// same while the mistake surfaces earlier.
    @available(*, unavailable, message: "this value is not PromptRepresentable")
    public static func buildExpression<T>(_ expression: T) -> Prompt {
        fatalError("unreachable: unavailable")
    }
}
