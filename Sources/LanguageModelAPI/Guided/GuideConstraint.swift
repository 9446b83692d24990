/// What a `GenerationGuide` asks of a value, independent of the guide's Swift type so that
/// schemas can store guides of every value type side by side.
package enum GuideConstraint: Sendable, Hashable {
    /// The string is one of these values (`constant` is a single choice).
    case choices([String])
    /// The string fully matches this regex; nil when the regex has no literal source (built with
    /// RegexBuilder), which constrained decoding cannot use.
    case pattern(String?)
    /// Integer bounds.
    case integerBounds(minimum: Int?, maximum: Int?)
    /// Number bounds (`Float`, `Double` and `Decimal` guides).
    case numberBounds(minimum: Double?, maximum: Double?)
    /// Array length bounds.
    case count(minimum: Int?, maximum: Int?)
    /// Constraints on every element of an array.
    case element([GuideConstraint])
}
