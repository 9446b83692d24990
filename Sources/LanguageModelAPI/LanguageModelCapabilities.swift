/// What a model can do. A session checks a request against these before any compute.
public struct LanguageModelCapabilities: Sendable, Equatable, ExpressibleByArrayLiteral {
    /// One capability.
    public struct Capability: Sendable, Hashable, CustomStringConvertible {
        /// A stable name, for messages.
        public let name: String
        init(_ name: String) { self.name = name }
        /// The name.
        public var description: String { name }

        /// Thinking in a separate block before answering, with a controllable budget.
        public static let reasoning = Capability("reasoning")
        /// Output constrained to a schema.
        public static let guidedGeneration = Capability("guidedGeneration")
        /// Calling tools the session declares.
        public static let toolCalling = Capability("toolCalling")
        /// Image input.
        public static let vision = Capability("vision")
    }

    /// The capabilities, without duplicates.
    public let all: Set<Capability>

    /// A set of capabilities.
    public init(_ capabilities: [Capability]) { all = Set(capabilities) }

    /// A set of capabilities (Apple's labelled spelling).
    public init(capabilities: [Capability]) { self.init(capabilities) }

    /// As `init(_:)`.
    public init(arrayLiteral elements: Capability...) { self.init(elements) }

    /// Whether `capability` is declared.
    public func contains(_ capability: Capability) -> Bool { all.contains(capability) }
}

/// Whether a model can run now.
public enum LanguageModelAvailability: Sendable, Equatable {
    /// Ready to respond.
    case available
    /// Cannot respond, with the reason.
    case unavailable(String)
}
