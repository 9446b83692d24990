// What a request's output must be: free text, JSON of a schema, or tool calls. Decides the
// constraint on sampling, what the prompt gains (schema text, tool definitions) and how the
// answer is read back.
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

    init(request: LanguageModelExecutorGenerationRequest, weights: ModelWeights) throws {
        transcript = request.transcript
        if let schema = request.schema {
            if request.contextOptions.includeSchemaInPrompt != false {
                promptSuffix = "\n\nRespond with JSON that follows this JSON Schema:\n" + schema.schemaPromptText()
            }
            gate = try Self.gate(schema.name) { try schema.jsonGrammar() } vocabulary: { weights.grammarVocabulary }
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

    /// The calls in `answer`, or nil when it is not a tool call (or no tools were offered).
    func toolCalls(in answer: String) -> [(id: String, name: String, arguments: String)]? { nil }
}
