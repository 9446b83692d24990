/// Why generated text that starts a tool call is not a valid one.
import LanguageModelAPI
enum ToolCallParseError: Error, Equatable {
    /// The call's JSON is malformed or cut off; the payload says where.
    case malformedJSON(String)
    /// A call is not an object with a string `name`.
    case missingName
    /// A call's arguments are present but not a JSON object (or a string holding one).
    case invalidArguments(tool: String)
    /// A call marker is not followed by what the format requires (for example `[ARGS]`).
    case malformedEnvelope(String)
}
