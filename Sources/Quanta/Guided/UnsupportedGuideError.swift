/// A schema asks for something constrained decoding cannot enforce (a regex without a literal
/// source, an empty range, a guide on the wrong kind of value, free-form objects). The session
/// reports it as `LanguageModelError.unsupportedGenerationGuide`.
struct UnsupportedGuideError: Error, Equatable {
    /// The schema (type) the guide belongs to.
    var schemaName: String?
    /// What cannot be enforced, for developers.
    var reason: String
}
