// The parsed template: statements (Node) and expressions (Expr). Every node that can fail at
// render time keeps its source location for the error message.

enum Literal: Sendable {
    case none
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
}

enum BinaryOp: String, Sendable {
    case add = "+", sub = "-", mul = "*", div = "/", floorDiv = "//", mod = "%", pow = "**", concat = "~"
}

enum CompareOp: String, Sendable {
    case eq = "==", ne = "!=", lt = "<", le = "<=", gt = ">", ge = ">=", isIn = "in", notIn = "not in"
}

/// Keyword arguments keep their order (macro calls bind them by name).
struct Arguments: Sendable {
    var positional: [Expr] = []
    var keyword: [(String, Expr)] = []
}

indirect enum Expr: Sendable {
    case literal(Literal)
    case name(String, SourceLocation)
    case list([Expr])
    case dict([(Expr, Expr)], SourceLocation)
    /// `a.b`: attribute first, then item (jinja2's getattr order).
    case attribute(Expr, String, SourceLocation)
    /// `a[b]`: item first, then attribute.
    case item(Expr, Expr, SourceLocation)
    case slice(Expr, Expr?, Expr?, Expr?, SourceLocation)
    case call(Expr, Arguments, SourceLocation)
    case filter(Expr, String, Arguments, SourceLocation)
    case test(Expr, String, Arguments, negated: Bool, SourceLocation)
    case negate(Expr, SourceLocation)
    case plus(Expr, SourceLocation)
    case not(Expr)
    case and(Expr, Expr)
    case or(Expr, Expr)
    case binary(BinaryOp, Expr, Expr, SourceLocation)
    case compare(Expr, [(CompareOp, Expr)], SourceLocation)
    case conditional(condition: Expr, then: Expr, otherwise: Expr?)
}

struct Parameter: Sendable {
    let name: String
    let defaultValue: Expr?
}

struct MacroDefinition: Sendable {
    let name: String
    let parameters: [Parameter]
    let body: [Node]
    let location: SourceLocation
}

enum AssignTarget: Sendable {
    /// `set a = ...` or `set a, b = ...`
    case names([String])
    /// `set ns.attr = ...`
    case attribute(String, String)
}

indirect enum Node: Sendable {
    case text(String)
    case output(Expr, SourceLocation)
    case conditional([(Expr, [Node])], otherwise: [Node])
    case loop(targets: [String], iterable: Expr, filter: Expr?, body: [Node], otherwise: [Node], SourceLocation)
    case assign(AssignTarget, Expr, SourceLocation)
    /// `{% set name %}...{% endset %}` captures rendered text.
    case assignBlock(String, [Node])
    case macro(MacroDefinition)
    /// `{% call(params) macro(args) %}body{% endcall %}`
    case callBlock(Expr, callerParameters: [Parameter], body: [Node], SourceLocation)
    case breakLoop
    case continueLoop
    /// Hugging Face's `{% generation %}` marker: renders its body unchanged.
    case block([Node])
}
