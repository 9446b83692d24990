// The shapes constrained decoding can enforce: a small JSON Schema subset that the public
// `GenerationSchema` (module Quanta) lowers to. This module knows nothing of models, tokenizers
// or Foundation Models types; it turns a `JSONGrammar` into byte- and token-level masks.

/// What a JSON value may look like.
public indirect enum JSONShape: Sendable, Equatable, Hashable {
    /// An object whose properties are written in this order; optional ones may be left out.
    case object(properties: [JSONProperty])
    /// An object with any keys (any JSON strings, in any order, repeats not checked), every value of
    /// shape `values`: JSON Schema's `additionalProperties`, and with `anyJSON` a free-form object.
    case dictionary(values: JSONShape)
    /// An array of `items`, with between `minimumCount` and `maximumCount` (nil: no limit) elements.
    case array(items: JSONShape, minimumCount: Int, maximumCount: Int?)
    /// A string.
    case string(StringConstraint)
    /// An integer (no fraction, no exponent) within the bounds (nil: unbounded).
    case integer(minimum: Int?, maximum: Int?)
    /// A number (integer or with a fraction, no exponent) within the bounds (nil: unbounded).
    case number(minimum: Double?, maximum: Double?)
    /// `true` or `false`.
    case boolean
    /// `null`.
    case null
    /// Any one of these shapes.
    case anyOf([JSONShape])
    /// The shape named in `JSONGrammar.definitions` (for recursive schemas).
    case reference(String)
}

extension JSONShape {
    /// Any JSON value whose objects and arrays nest at most `maximumDepth` deep (0: strings,
    /// numbers, booleans and null only). Numbers are `.number` ones (no exponent). The bound keeps
    /// the grammar finite; each level refers to the one below.
    public static func anyJSON(maximumDepth: Int) -> JSONShape {
        let scalars: [JSONShape] = [.string(.any), .number(minimum: nil, maximum: nil), .boolean, .null]
        guard maximumDepth > 0 else { return .anyOf(scalars) }
        let inner = anyJSON(maximumDepth: maximumDepth - 1)
        return .anyOf([.dictionary(values: inner), .array(items: inner, minimumCount: 0, maximumCount: nil)] + scalars)
    }

    /// Any JSON object whose values nest at most `maximumDepth` deep, the object itself counted
    /// (1: an object of scalars). OpenAI's `response_format` `json_object`.
    public static func anyObject(maximumDepth: Int) -> JSONShape {
        .dictionary(values: anyJSON(maximumDepth: max(maximumDepth - 1, 0)))
    }
}

/// One property of an object shape.
public struct JSONProperty: Sendable, Equatable, Hashable {
    /// The key, written as a JSON string.
    public var name: String
    /// The value's shape.
    public var shape: JSONShape
    /// Whether the key may be left out.
    public var isOptional: Bool

    /// A property.
    public init(name: String, shape: JSONShape, isOptional: Bool = false) {
        self.name = name
        self.shape = shape
        self.isOptional = isOptional
    }
}

/// What a string's content may be.
public enum StringConstraint: Sendable, Equatable, Hashable {
    /// Any string.
    case any
    /// Exactly one of these values.
    case choices([String])
    /// A full match of this regular expression (the `Regex` subset documented in `RegexPattern`).
    case pattern(String)
}

/// A document to generate: literal text, then one JSON value, then literal text (for example a
/// tool-call envelope `<tool_call>\n` … `\n</tool_call>`).
public struct JSONGrammar: Sendable, Equatable, Hashable {
    /// Text written before the value.
    public var prefix: String
    /// The value.
    public var root: JSONShape
    /// Text written after the value.
    public var suffix: String
    /// Named shapes that `.reference` points to.
    public var definitions: [String: JSONShape]

    /// A grammar.
    public init(prefix: String = "", root: JSONShape, suffix: String = "", definitions: [String: JSONShape] = [:]) {
        self.prefix = prefix
        self.root = root
        self.suffix = suffix
        self.definitions = definitions
    }
}
