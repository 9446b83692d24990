/// Why tools or tool calls could not be put into a prompt.
import LanguageModelAPI
enum ToolPromptError: Error, Equatable {
    /// A tool's parameter schema is not a JSON object.
    case invalidParametersSchema(tool: String, reason: String)
    /// A call's arguments are not a JSON object.
    case invalidArguments(tool: String, reason: String)
}
