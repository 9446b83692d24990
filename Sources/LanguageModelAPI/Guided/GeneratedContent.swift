/// A JSON-like value produced by guided generation (or built by hand), possibly still being
/// generated: the bridge between model output and `Generable` types.
public struct GeneratedContent: Sendable, Equatable {
    /// Identifies this value across stream snapshots, when the producer set one.
    public var id: GenerationID?

    /// The value.
    public private(set) var kind: Kind

    /// Whether the value was seen to its end. Content parsed from a JSON prefix cut mid-value is
    /// incomplete; content built in code is complete.
    public internal(set) var isComplete: Bool

    /// Content of the given kind.
    public init(kind: Kind, id: GenerationID? = nil) {
        self.kind = kind
        self.id = id
        self.isComplete = true
    }

    /// Content of the given kind and completeness (what the partial JSON parser builds).
    internal init(kind: Kind, isComplete: Bool) {
        self.kind = kind
        self.id = nil
        self.isComplete = isComplete
    }

    /// Equal when the values and ids are equal; completeness is not compared, so `[1` and `[1]`
    /// hold equal content.
    public static func == (a: GeneratedContent, b: GeneratedContent) -> Bool {
        a.kind == b.kind && a.id == b.id
    }
}

extension GeneratedContent {
    /// The shape and value of generated content.
    public enum Kind: Equatable, Sendable {
        /// `null`.
        case null
        /// `true` or `false`.
        case bool(Bool)
        /// A number; JSON numbers are read as `Double`.
        case number(Double)
        /// A string.
        case string(String)
        /// An ordered list of values.
        case array([GeneratedContent])
        /// An object: its properties by key, and the order the keys were written in.
        case structure(properties: [String: GeneratedContent], orderedKeys: [String])
    }
}

extension GeneratedContent: CustomDebugStringConvertible {
    /// The JSON text, marked when the content is still incomplete.
    public var debugDescription: String {
        isComplete ? jsonString : "\(jsonString) (incomplete)"
    }
}
