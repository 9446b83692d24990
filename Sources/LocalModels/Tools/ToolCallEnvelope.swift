// The grammar for `.required` tool calling: the model must write exactly one call to one of
// the tools, in its own format, so that `ToolCallFormat.parse` reads it back.
import LanguageModelAPI
import Grammar

/// A tool as constrained decoding sees it: its name and the shape of its arguments object.
struct ToolCallShape: Sendable, Equatable {
    /// The tool's name.
    var name: String
    /// The arguments object's shape (lowered from the tool's `GenerationSchema`).
    var argumentsShape: JSONShape
}

/// Why no call grammar can be built.
enum ToolCallEnvelopeError: Error, Equatable {
    /// There is no tool to call.
    case noTools
    /// `[TOOL_CALLS]name[ARGS]` puts the name outside the JSON, in the grammar's literal
    /// prefix, which can hold only one name.
    case namedFormatNeedsOneTool(count: Int)
}

extension ToolCallFormat {
    /// A grammar that admits exactly one call to one of `tools`:
    /// - Hermes: `<tool_call>\n` + `{"name": …, "arguments": {…}}` + `\n</tool_call>`;
    /// - Llama 3: `{"name": …, "parameters": {…}}` with no markers (what its template teaches
    ///   for custom tools; `<|python_tag|>` belongs to its built-in tools);
    /// - Mistral: `[TOOL_CALLS] ` + an array of exactly one `{"name": …, "arguments": {…}}` (the
    ///   space is the one the v0.3 template writes after the marker, so the model sees the
    ///   tokens it was trained on);
    /// - Mistral named: `[TOOL_CALLS]name[ARGS]` + the arguments object, for a single tool.
    ///
    /// Names are `.choices` of one value, so each branch of the `anyOf` pins its own arguments.
    /// `definitions` are the ones the argument shapes' `.reference`s point to.
    func requiredCallGrammar(for tools: [ToolCallShape], definitions: [String: JSONShape] = [:]) throws(ToolCallEnvelopeError) -> JSONGrammar {
        guard !tools.isEmpty else { throw .noTools }
        func calls(argumentsKey: String) -> JSONShape {
            let objects = tools.map { tool in
                JSONShape.object(properties: [
                    JSONProperty(name: "name", shape: .string(.choices([tool.name]))),
                    JSONProperty(name: argumentsKey, shape: tool.argumentsShape),
                ])
            }
            return objects.count == 1 ? objects[0] : .anyOf(objects)
        }
        switch self {
        case .hermes:
            return JSONGrammar(prefix: "<tool_call>\n", root: calls(argumentsKey: "arguments"), suffix: "\n</tool_call>",
                               definitions: definitions)
        case .llama3:
            return JSONGrammar(root: calls(argumentsKey: "parameters"), definitions: definitions)
        case .mistral:
            return JSONGrammar(prefix: "[TOOL_CALLS] ",
                               root: .array(items: calls(argumentsKey: "arguments"), minimumCount: 1, maximumCount: 1),
                               definitions: definitions)
        case .mistralNamed:
            guard tools.count == 1 else { throw .namedFormatNeedsOneTool(count: tools.count) }
            return JSONGrammar(prefix: "[TOOL_CALLS]\(tools[0].name)[ARGS]", root: tools[0].argumentsShape,
                               definitions: definitions)
        }
    }
}
