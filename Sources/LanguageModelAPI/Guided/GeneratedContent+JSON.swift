extension GeneratedContent {
    /// Content read from JSON text, or from a prefix of it as produced mid-stream (then
    /// `isComplete` is false; see `PartialJSONParser` for how cut values read). Throws
    /// `ParsingError` for text that is not a JSON prefix.
    public init(json: String) throws {
        do {
            self = try PartialJSONParser.parse(json)
        } catch {
            throw ParsingError(
                rawContent: json, underlyingError: error,
                debugDescription: "\(error.message) at byte \(error.offset)")
        }
    }

    /// The content as compact JSON, properties in order; `GeneratedContent(json:)` reads it back
    /// to equal content.
    public var jsonString: String {
        JSONWriter.write(self)
    }
}
