/// Per-request controls over what the model does with its context (Apple's `ContextOptions`).
public struct ContextOptions: Sendable, Equatable, Hashable, Codable {
    /// How much the model may think before answering. Only models with the `.reasoning`
    /// capability accept one; see `ReasoningBudget` for the token budgets.
    public enum ReasoningLevel: Sendable, Equatable, Hashable, Codable {
        /// A short thinking block: a quarter of the usable budget.
        case light
        /// Half of the usable budget.
        case moderate
        /// All of the usable budget.
        case deep
        /// `"budget:N"` (at most N thinking tokens) or `"none"` / `"off"` / `"no_think"` (no
        /// thinking). Anything else is treated as `.moderate`.
        case custom(String)
    }

    /// Whether a guided-generation schema is shown to the model in the prompt; nil = yes.
    public var includeSchemaInPrompt: Bool?
    /// The thinking level; nil = the model default (for Quanta, `.deep`).
    public var reasoningLevel: ReasoningLevel?

    /// Options; nil = model default.
    public init(includeSchemaInPrompt: Bool? = nil, reasoningLevel: ReasoningLevel? = nil) {
        self.includeSchemaInPrompt = includeSchemaInPrompt
        self.reasoningLevel = reasoningLevel
    }
}
