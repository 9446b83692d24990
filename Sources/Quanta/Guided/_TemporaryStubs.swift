// TEMPORARY: stand-ins for the guided-generation branch's types so the session compiles before
// the merge. Deleted at merge.
import Grammar
public struct Prompt: Sendable { var text: String = ""; public init(_ c: some PromptRepresentable) { text = c.promptRepresentation.text }; init() {}
    public init(@PromptBuilder _ content: () throws -> Prompt) rethrows { self = try content() } }
public struct Instructions: Sendable { var text: String = ""; public init(_ c: some InstructionsRepresentable) { text = c.instructionsRepresentation.text }; init() {}
    public init(@InstructionsBuilder _ content: () throws -> Instructions) rethrows { self = try content() } }
public protocol PromptRepresentable { var promptRepresentation: Prompt { get } }
public protocol InstructionsRepresentable { var instructionsRepresentation: Instructions { get } }
extension Prompt: PromptRepresentable { public var promptRepresentation: Prompt { self } }
extension Instructions: InstructionsRepresentable { public var instructionsRepresentation: Instructions { self } }
extension String: PromptRepresentable, InstructionsRepresentable {
    public var promptRepresentation: Prompt { var p = Prompt(); p.text = self; return p }
    public var instructionsRepresentation: Instructions { var p = Instructions(); p.text = self; return p } }
@resultBuilder public struct PromptBuilder { public static func buildBlock(_ c: String...) -> Prompt { c.joined(separator: "\n").promptRepresentation } }
@resultBuilder public struct InstructionsBuilder { public static func buildBlock(_ c: String...) -> Instructions { c.joined(separator: "\n").instructionsRepresentation } }
public struct GenerationID: Sendable, Hashable { public init() {} }
public struct GeneratedContent: Sendable, Equatable { public var jsonString: String; public init(json: String) throws { jsonString = json }
    public var isComplete: Bool { true }
    func value<V: ConvertibleFromGeneratedContent>(_ t: V.Type) throws -> V { try V(self) }
    public init(_ value: some ConvertibleToGeneratedContent) { self = value.generatedContent } }
public protocol ConvertibleFromGeneratedContent: SendableMetatype { init(_ content: GeneratedContent) throws }
public protocol ConvertibleToGeneratedContent: InstructionsRepresentable, PromptRepresentable { var generatedContent: GeneratedContent { get } }
public protocol Generable: ConvertibleFromGeneratedContent, ConvertibleToGeneratedContent {
    associatedtype PartiallyGenerated: ConvertibleFromGeneratedContent = Self
    static var generationSchema: GenerationSchema { get } }
extension GeneratedContent: Generable { public static var generationSchema: GenerationSchema { GenerationSchema() }
    public init(_ content: GeneratedContent) throws { self = content }
    public var generatedContent: GeneratedContent { self }
    public var promptRepresentation: Prompt { jsonString.promptRepresentation }
    public var instructionsRepresentation: Instructions { jsonString.instructionsRepresentation } }
extension String: Generable { public static var generationSchema: GenerationSchema { GenerationSchema() }
    public init(_ content: GeneratedContent) throws { self = content.jsonString }
    public var generatedContent: GeneratedContent { try! GeneratedContent(json: self) } }
public struct GenerationSchema: Sendable, Codable { var name: String = "x"
    func jsonGrammar(prefix: String = "", suffix: String = "") throws -> JSONGrammar { JSONGrammar(root: .boolean) }
    func schemaPromptText() -> String { "" } }
