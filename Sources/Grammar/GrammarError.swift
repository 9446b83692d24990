/// Why a `JSONGrammar` cannot be enforced. The caller maps these to `unsupportedGenerationGuide`.
public enum GrammarError: Error, Sendable, Equatable {
    /// A pattern uses syntax outside the supported subset (see `RegexPattern`).
    case unsupportedPattern(pattern: String, reason: String)
    /// A pattern compiles to more states than a matcher tracks (at most `RegexNFA.maximumStates`).
    case patternTooComplex(pattern: String)
    /// A numeric range or count range that contains no value (for example minimum > maximum).
    case emptyRange(String)
    /// `.choices([])`: a string with no allowed value.
    case noChoices
    /// A `.reference` to a name missing from `JSONGrammar.definitions`.
    case undefinedReference(String)
    /// The root shape has no finite document (for example an object that requires itself).
    case noFiniteDocument
}
