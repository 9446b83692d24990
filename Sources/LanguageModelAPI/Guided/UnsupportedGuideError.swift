/// A schema asks for something constrained decoding cannot enforce (a regex without a literal
/// source, an empty range, a guide on the wrong kind of value, free-form objects). The session
/// reports it as `LanguageModelError.unsupportedGenerationGuide`.
package struct UnsupportedGuideError: Error, Equatable {
    /// The schema (type) the guide belongs to.
    package var schemaName: String?
    /// What cannot be enforced, for developers.
    package var reason: String

    package init(schemaName: String?, reason: String) {
        self.schemaName = schemaName
        self.reason = reason
    }
}
