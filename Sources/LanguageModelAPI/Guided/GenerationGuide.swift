import Foundation

/// A constraint on one generated value: allowed strings, a pattern, numeric bounds, array
/// lengths. Attach guides to schema properties; constrained decoding enforces them.
public struct GenerationGuide<Value> {
    /// What the guide requires (a range is two bounds).
    internal let constraints: [GuideConstraint]

    internal init(_ constraints: GuideConstraint...) {
        self.constraints = constraints
    }
}

extension GenerationGuide where Value == String {
    /// The string is exactly `value`.
    public static func constant(_ value: String) -> GenerationGuide<String> { .init(.choices([value])) }

    /// The string is one of `values`.
    public static func anyOf(_ values: [String]) -> GenerationGuide<String> { .init(.choices(values)) }

    /// The string fully matches `regex`. Only regexes with a literal source (a `/…/` literal or
    /// `Regex(String)`) can be enforced; others make lowering throw.
    public static func pattern<Output>(_ regex: Regex<Output>) -> GenerationGuide<String> {
        .init(.pattern(regex._literalPattern))
    }
}

extension GenerationGuide where Value == Int {
    /// At least `value`.
    public static func minimum(_ value: Int) -> GenerationGuide<Int> { .init(.integerBounds(minimum: value, maximum: nil)) }

    /// At most `value`.
    public static func maximum(_ value: Int) -> GenerationGuide<Int> { .init(.integerBounds(minimum: nil, maximum: value)) }

    /// Within `range`.
    public static func range(_ range: ClosedRange<Int>) -> GenerationGuide<Int> {
        .init(.integerBounds(minimum: range.lowerBound, maximum: range.upperBound))
    }
}

extension GenerationGuide where Value == Float {
    /// At least `value`.
    public static func minimum(_ value: Float) -> GenerationGuide<Float> { .init(.numberBounds(minimum: Double(value), maximum: nil)) }

    /// At most `value`.
    public static func maximum(_ value: Float) -> GenerationGuide<Float> { .init(.numberBounds(minimum: nil, maximum: Double(value))) }

    /// Within `range`.
    public static func range(_ range: ClosedRange<Float>) -> GenerationGuide<Float> {
        .init(.numberBounds(minimum: Double(range.lowerBound), maximum: Double(range.upperBound)))
    }
}

extension GenerationGuide where Value == Decimal {
    /// At least `value` (as the nearest `Double`, the precision generated numbers have).
    public static func minimum(_ value: Decimal) -> GenerationGuide<Decimal> {
        .init(.numberBounds(minimum: value.nearestDouble, maximum: nil))
    }

    /// At most `value` (as the nearest `Double`).
    public static func maximum(_ value: Decimal) -> GenerationGuide<Decimal> {
        .init(.numberBounds(minimum: nil, maximum: value.nearestDouble))
    }

    /// Within `range` (bounds as the nearest `Double`).
    public static func range(_ range: ClosedRange<Decimal>) -> GenerationGuide<Decimal> {
        .init(.numberBounds(minimum: range.lowerBound.nearestDouble, maximum: range.upperBound.nearestDouble))
    }
}

extension GenerationGuide where Value == Double {
    /// At least `value`.
    public static func minimum(_ value: Double) -> GenerationGuide<Double> { .init(.numberBounds(minimum: value, maximum: nil)) }

    /// At most `value`.
    public static func maximum(_ value: Double) -> GenerationGuide<Double> { .init(.numberBounds(minimum: nil, maximum: value)) }

    /// Within `range`.
    public static func range(_ range: ClosedRange<Double>) -> GenerationGuide<Double> {
        .init(.numberBounds(minimum: range.lowerBound, maximum: range.upperBound))
    }
}

extension GenerationGuide {
    /// At least `count` elements.
    public static func minimumCount<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
        .init(.count(minimum: count, maximum: nil))
    }

    /// At most `count` elements.
    public static func maximumCount<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
        .init(.count(minimum: nil, maximum: count))
    }

    /// A number of elements within `range`.
    public static func count<Element>(_ range: ClosedRange<Int>) -> GenerationGuide<[Element]> where Value == [Element] {
        .init(.count(minimum: range.lowerBound, maximum: range.upperBound))
    }

    /// Exactly `count` elements.
    public static func count<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
        .init(.count(minimum: count, maximum: count))
    }

    /// Every element follows `guide`.
    public static func element<Element>(_ guide: GenerationGuide<Element>) -> GenerationGuide<[Element]> where Value == [Element] {
        .init(.element(guide.constraints))
    }
}

// `[Never]` guides exist in Apple's API only to keep overload resolution of the generic array
// guides unambiguous for empty array literals; they are never meant to be called.
extension GenerationGuide where Value == [Never] {
    /// Not callable: exists for overload resolution only.
    public static func minimumCount(_ count: Int) -> GenerationGuide<Value> {
        fatalError("GenerationGuide<[Never]>.\(#function) should not be called.")
    }

    /// Not callable: exists for overload resolution only.
    public static func maximumCount(_ count: Int) -> GenerationGuide<Value> {
        fatalError("GenerationGuide<[Never]>.\(#function) should not be called.")
    }

    /// Not callable: exists for overload resolution only.
    public static func count(_ range: ClosedRange<Int>) -> GenerationGuide<Value> {
        fatalError("GenerationGuide<[Never]>.\(#function) should not be called.")
    }

    /// Not callable: exists for overload resolution only.
    @_disfavoredOverload
    public static func count(_ count: Int) -> GenerationGuide<Value> {
        fatalError("GenerationGuide<[Never]>.\(#function) should not be called.")
    }
}

extension Decimal {
    /// The `Double` nearest this decimal.
    var nearestDouble: Double { NSDecimalNumber(decimal: self).doubleValue }
}
