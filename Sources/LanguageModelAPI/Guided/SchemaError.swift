import Foundation

extension GenerationSchema {
    /// A schema that cannot be built: names clash, a reference has no definition, or a choice
    /// has no options.
    public enum SchemaError: Error, LocalizedError {
        /// Two definitions share the name `type`.
        case duplicateType(schema: String?, type: String, context: GenerationSchema.SchemaError.Context)
        /// The object `schema` has two properties named `property`.
        case duplicateProperty(schema: String, property: String, context: GenerationSchema.SchemaError.Context)
        /// The choice `schema` has no options.
        case emptyTypeChoices(schema: String, context: GenerationSchema.SchemaError.Context)
        /// `schema` refers to names nothing defines.
        case undefinedReferences(schema: String?, references: [String], context: GenerationSchema.SchemaError.Context)
    }
}

extension GenerationSchema.SchemaError {
    /// Details of a schema error.
    public struct Context: Sendable {
        /// What went wrong, for developers.
        public let debugDescription: String

        /// A context.
        public init(debugDescription: String) {
            self.debugDescription = debugDescription
        }
    }
}

extension GenerationSchema.SchemaError {
    /// What is wrong with the schema.
    public var errorDescription: String? {
        switch self {
        case .duplicateType(let schema, let type, _):
            "Schema \(schema.map { "'\($0)' " } ?? "")has more than one definition named '\(type)'."
        case .duplicateProperty(let schema, let property, _):
            "Schema '\(schema)' has more than one property named '\(property)'."
        case .emptyTypeChoices(let schema, _):
            "Schema '\(schema)' is a choice with no options."
        case .undefinedReferences(let schema, let references, _):
            "Schema \(schema.map { "'\($0)' " } ?? "")refers to undefined names: \(references.joined(separator: ", "))."
        }
    }

    /// How to fix the schema.
    public var recoverySuggestion: String? {
        switch self {
        case .duplicateType:
            "Give each dependency (and each nested Generable type) a unique name."
        case .duplicateProperty:
            "Rename or remove one of the properties."
        case .emptyTypeChoices:
            "Provide at least one choice."
        case .undefinedReferences:
            "Pass a schema with each referenced name in the dependencies."
        }
    }
}
