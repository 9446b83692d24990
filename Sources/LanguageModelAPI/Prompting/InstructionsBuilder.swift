/// Builds `Instructions` from the lines of a closure: strings, representable values, `if`/`else`,
/// `for` loops and availability checks.
@resultBuilder
public struct InstructionsBuilder {
    /// Joins the block's lines, in order.
    public static func buildBlock<each I: InstructionsRepresentable>(_ components: repeat each I) -> Instructions {
        Instructions(joining: repeat each components)
    }

    /// Joins the instructions of a `for` loop's iterations.
    public static func buildArray(_ instructions: [some InstructionsRepresentable]) -> Instructions {
        Instructions(instructions)
    }

    /// The `if` branch of an `if`/`else`.
    public static func buildEither(first component: some InstructionsRepresentable) -> Instructions {
        Instructions(component)
    }

    /// The `else` branch of an `if`/`else`.
    public static func buildEither(second component: some InstructionsRepresentable) -> Instructions {
        Instructions(component)
    }

    /// An `if` without `else`: nothing when the condition is false.
    public static func buildOptional(_ component: Instructions?) -> Instructions {
        component ?? Instructions()
    }

    /// A block guarded by `if #available`.
    public static func buildLimitedAvailability(_ instructions: some InstructionsRepresentable) -> Instructions {
        Instructions(instructions)
    }

    /// A representable line, kept as is.
    @_disfavoredOverload
    public static func buildExpression<I: InstructionsRepresentable>(_ expression: I) -> I {
        expression
    }

    /// An instructions line.
    public static func buildExpression(_ expression: Instructions) -> Instructions {
        expression
    }

    /// A line that is not representable. Apple's builder accepts it and traps at run time; here
    /// it is a compile-time error instead, so the overload set (and every valid program) is the
    /// same while the mistake surfaces earlier.
    @available(*, unavailable, message: "this value is not InstructionsRepresentable")
    public static func buildExpression<T>(_ expression: T) -> Instructions {
        fatalError("unreachable: unavailable")
    }
}
