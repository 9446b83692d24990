// The model-format layer's own view of tools, independent of the public `Tool` protocol and
// `Transcript` types so that the session can map its entries onto it.
import LanguageModelAPI

/// A tool as the prompt describes it to the model.
struct ToolDescriptor: Sendable, Equatable {
    /// The name the model calls it by.
    var name: String
    /// What the tool does, in natural language.
    var description: String
    /// The JSON Schema of the arguments object, as JSON text.
    var parametersJSONSchema: String
}

/// One call the model made, as it goes back into the prompt.
struct ToolCallRecord: Sendable, Equatable {
    /// The call's identifier, which the matching tool result repeats.
    var id: String
    /// The tool's name.
    var name: String
    /// The arguments object, as JSON text.
    var argumentsJSON: String
}

/// One turn of a conversation that may involve tools, before it is lowered to chat messages.
enum ToolConversationTurn: Sendable, Equatable {
    /// The system prompt (instructions).
    case system(String)
    /// A user message.
    case user(String)
    /// An assistant reply in plain text.
    case assistant(String)
    /// An assistant reply that calls tools, with any text the model wrote before the calls.
    case toolCalls(text: String, calls: [ToolCallRecord])
    /// What a tool returned for the call with `callID`.
    case toolResult(callID: String, name: String, content: String)
}
