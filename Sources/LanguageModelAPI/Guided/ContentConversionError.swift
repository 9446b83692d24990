/// Why generated content could not be converted to a Swift value. Thrown as Swift's
/// `DecodingError`, the error callers already handle for every other decoding step.
enum ContentConversionError {
    /// The content is not of the expected kind (or out of the target type's range).
    static func typeMismatch(expected: String, in content: GeneratedContent) -> DecodingError {
        DecodingError.typeMismatch(
            Any.self,
            DecodingError.Context(codingPath: [], debugDescription: "Expected \(expected), found \(content.jsonString)"))
    }

    /// A structure lacks a property that is not optional.
    static func missingProperty(_ name: String, in content: GeneratedContent) -> DecodingError {
        DecodingError.keyNotFound(
            PropertyKey(stringValue: name),
            DecodingError.Context(codingPath: [], debugDescription: "No property \"\(name)\" in \(content.jsonString)"))
    }
}

/// A property name as a `CodingKey`, for `DecodingError.keyNotFound`.
struct PropertyKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
