// Tools the model may call during a request (Apple's `Tool`).

/// A function the model can call. The session offers each tool's name, description and argument
/// schema to the model; when the model calls it, the session decodes the arguments, awaits
/// `call(arguments:)` and gives the output back to the model, until the model answers.
///
/// ```swift
/// struct Weather: Tool {
///     let description = "The current temperature in a city"
///     struct Arguments: Generable { ... }        // see Generable for the conformance idiom
///     func call(arguments: Arguments) async throws -> String { "21 °C" }
/// }
/// let session = LanguageModelSession(model: model, tools: [Weather()])
/// ```
public protocol Tool<Arguments, Output>: Sendable {
    /// What the tool returns (rendered into the transcript through its prompt representation).
    associatedtype Output: PromptRepresentable
    /// What the model passes (decoded from the generated JSON arguments).
    associatedtype Arguments: ConvertibleFromGeneratedContent
    /// The name the model calls it by; defaults to the type's name.
    var name: String { get }
    /// What it does, in words the model reads.
    var description: String { get }
    /// The schema of the arguments.
    var parameters: GenerationSchema { get }
    /// Whether the schema is shown to the model (default true).
    var includesSchemaInInstructions: Bool { get }
    /// Runs the tool.
    @concurrent func call(arguments: Arguments) async throws -> Output
}

extension Tool {
    /// The type's name.
    public var name: String { String(describing: Self.self) }
    /// True.
    public var includesSchemaInInstructions: Bool { true }
}

extension Tool where Arguments: Generable {
    /// The arguments type's schema.
    public var parameters: GenerationSchema { Arguments.generationSchema }
}

extension Tool {
    /// Decodes `arguments`, runs the tool and returns its output as prompt text.
    func invoke(with arguments: GeneratedContent) async throws -> String {
        let decoded = try Arguments(arguments)
        return try await call(arguments: decoded).promptRepresentation.text
    }
}
