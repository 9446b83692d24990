// What a request's output must be: free text, JSON of a schema, or tool calls. Decides the
// constraint on sampling, what the prompt gains (schema text, tool definitions) and how the
// answer is read back.
import LanguageModelAPI
import Foundation
import Grammar
import Sampling

/// Chooses each answer token under a constraint (guided generation or a required tool call).
protocol OutputGate {
    /// The next token: masks what cannot continue the document, forces the shortest completion
    /// when `remaining` tokens are too few, else samples.
    mutating func next(logits: inout [Float], remaining: Int, sampler: inout Sampler) -> Int32
    /// Advances past a token that was emitted.
    mutating func accept(_ token: Int32)
    /// Whether the budget ran short and the gate forced the shortest completion.
    var didForceCompletion: Bool { get }
}

/// The request's output plan.
struct OutputPlan {
    /// The transcript to render (tool definitions folded in as the template needs).
    var transcript: Transcript
    /// Text added to the last user message.
    var promptSuffix: String?
    /// The constraint on answer tokens, if any.
    var gate: (any OutputGate)?
    /// Openings of a tool call, so the answer is held back while it may be one.
    var callOpenings: [String] = []
    /// Tool markup kept out of the answer: when the request involves tools (offered now, or
    /// defined or used earlier in the transcript), a model may write calls or tool responses as
    /// text even in a round that offers none.
    var markup: [ToolMarkup] = []

    /// The tools offered to the model (empty: none, so nothing is parsed as a call).
    var tools: [Transcript.ToolDefinition] = []
    /// The format calls are written in.
    package let format: ToolCallFormat

    init(request: LanguageModelExecutorGenerationRequest, loaded: LoadedModel) throws {
        transcript = request.transcript
        format = loaded.toolFormat
        let mode = request.generationOptions.toolCallingMode?.kind ?? .allowed
        if mode != .disallowed { tools = request.enabledToolDefinitions }
        if !request.enabledToolDefinitions.isEmpty || request.transcript.contains(where: \.involvesTools) { markup = format.markup }
        if !tools.isEmpty {
            callOpenings = format.callOpenings
            if mode == .required {
                gate = try Self.gate("tool call") { try Self.requiredCallGrammar(tools, format) } vocabulary: { loaded.grammarVocabulary }
                return
            }
        }
        if let schema = request.schema {
            if request.contextOptions.includeSchemaInPrompt != false {
                promptSuffix = "\n\nRespond with JSON that follows this JSON Schema:\n" + schema.schemaPromptText()
            }
            gate = try Self.gate(schema.name) { try schema.jsonGrammar() } vocabulary: { loaded.grammarVocabulary }
        }
    }

    /// A gate for the grammar `make` builds; schema problems become `unsupportedGenerationGuide`.
    static func gate(_ schemaName: String?, _ make: () throws -> JSONGrammar,
                     vocabulary: () -> TokenVocabulary) throws -> JSONGate {
        do {
            return try JSONGate(grammar: try make(), vocabulary: vocabulary())
        } catch let error as UnsupportedGuideError {
            throw LanguageModelError.unsupportedGenerationGuide(.init(schemaName: error.schemaName ?? schemaName,
                                                                      debugDescription: error.reason))
        } catch let error as GrammarError {
            throw LanguageModelError.unsupportedGenerationGuide(.init(schemaName: schemaName, debugDescription: "\(error)"))
        }
    }

    /// The calls in `answer`, or nil when it holds none (or no tools were offered). Calls of
    /// tools that were not offered, or text that is not a well-formed call, leave the answer text.
    func toolCalls(in answer: String) -> [(id: String, name: String, arguments: String)]? {
        guard !tools.isEmpty, let parsed = try? format.parse(answer), !parsed.calls.isEmpty,
              parsed.calls.allSatisfy({ call in tools.contains { $0.name == call.name } }) else { return nil }
        return parsed.calls.map { (id: "call_" + UUID().uuidString.prefix(8).lowercased(), name: $0.name, arguments: $0.argumentsJSON) }
    }

    /// The grammar of exactly one call of one of `tools`, in `format`.
    private static func requiredCallGrammar(_ tools: [Transcript.ToolDefinition], _ format: ToolCallFormat) throws -> JSONGrammar {
        var definitions: [String: JSONShape] = [:]
        let shapes = try tools.map { tool -> ToolCallShape in
            let grammar = try tool.parameters.jsonGrammar()
            definitions.merge(grammar.definitions) { first, _ in first }
            return ToolCallShape(name: tool.name, argumentsShape: grammar.root)
        }
        return try format.requiredCallGrammar(for: shapes, definitions: definitions)
    }
}

extension ToolCallFormat {
    /// How an answer that is a call starts, so the executor holds it back instead of streaming it.
    var callOpenings: [String] {
        switch self {
        case .hermes: return ["<tool_call>"]
        case .llama3: return ["<|python_tag|>", "{\"name\"", "{ \"name\""]
        case .mistral, .mistralNamed: return ["[TOOL_CALLS]"]
        }
    }

    /// The format's markers, which are never answer text: Hermes call and response blocks (the
    /// format the fallback prompt teaches, so also what templates without tool support see) and
    /// stray closing tags; the Llama 3 and Mistral call markers, which run to the end.
    var markup: [ToolMarkup] {
        switch self {
        case .hermes:
            return [ToolMarkup(opening: "<tool_call>", closing: "</tool_call>"),
                    ToolMarkup(opening: "<tool_response>", closing: "</tool_response>"),
                    ToolMarkup(opening: "</tool_call>", closing: ""), ToolMarkup(opening: "</tool_response>", closing: "")]
        case .llama3: return [ToolMarkup(opening: "<|python_tag|>", closing: nil)]
        case .mistral, .mistralNamed: return [ToolMarkup(opening: "[TOOL_CALLS]", closing: nil)]
        }
    }
}

extension Transcript.Entry {
    /// Whether the entry defines, calls or answers tools.
    var involvesTools: Bool {
        switch self {
        case let .instructions(instructions): return !instructions.toolDefinitions.isEmpty
        case .toolCalls, .toolOutput: return true
        default: return false
        }
    }
}
