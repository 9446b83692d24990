import Foundation

extension GeneratedContent {
    /// Text that is not JSON (nor a prefix of JSON) was given to `GeneratedContent(json:)`.
    public struct ParsingError: LocalizedError, Sendable {
        /// The text that failed to parse.
        public var rawContent: String
        /// The cause, when another error caused this one.
        public var underlyingError: (any Error)?
        /// What went wrong and where.
        public var debugDescription: String

        /// A parsing error.
        public init(rawContent: String, underlyingError: (any Error)? = nil, debugDescription: String) {
            self.rawContent = rawContent
            self.underlyingError = underlyingError
            self.debugDescription = debugDescription
        }
    }
}

extension GeneratedContent.ParsingError: CustomDebugStringConvertible {}

extension GeneratedContent.ParsingError {
    /// A one-line description for users.
    public var errorDescription: String? {
        "Generated content is not valid JSON: \(debugDescription)"
    }
}
