/// Thinking-token budgets for `ContextOptions.ReasoningLevel`.
///
/// With `M` the request's response limit (its `maximumResponseTokens`, clamped to the room left
/// in the context), `max(1, M / 8)` tokens are always kept for the answer and 2 for the think
/// markers; the rest, `U = max(0, M − 2 − max(1, M / 8))`, is what thinking may use:
///
/// | level | thinking tokens (between the markers) |
/// |---|---|
/// | `.light` | `U / 4` |
/// | `.moderate` | `U / 2` |
/// | `.deep`, nil (the default) | `U` |
/// | `.custom("budget:N")` | `min(N, U)` |
/// | `.custom("none")`, `"off"`, `"no_think"` | 0 (and the template gets `enable_thinking = false`) |
/// | any other `.custom` | as `.moderate` |
///
/// When the budget is spent the engine writes `</think>` itself and the answer follows.
import LanguageModelAPI
public enum ReasoningBudget {
    /// Thinking tokens allowed for `level` with a response limit of `maximumResponseTokens`.
    public static func tokens(for level: ContextOptions.ReasoningLevel?, maximumResponseTokens m: Int) -> Int {
        let usable = max(0, m - 2 - max(1, m / 8))
        switch level {
        case .light: return usable / 4
        case .moderate: return usable / 2
        case .deep, nil: return usable
        case let .custom(text):
            if isOff(level) { return 0 }
            if text.hasPrefix("budget:"), let n = Int(text.dropFirst("budget:".count)), n >= 0 { return min(n, usable) }
            return usable / 2
        }
    }

    /// Whether `level` turns thinking off.
    public static func isOff(_ level: ContextOptions.ReasoningLevel?) -> Bool {
        guard case let .custom(text)? = level else { return false }
        return ["none", "off", "no_think"].contains(text.lowercased())
    }
}
