/// A line starting with `/`: a chat command, never sent to the model.
enum ChatCommand: Equatable {
    case help
    case clear
    case bye
    /// `/set` alone shows the settings; `/set NAME VALUE` changes one for the next turns.
    case set(String?, String?)
    case save(String)
    case load(String)

    /// The command `line` spells; nil when `line` is a message. An unknown or malformed command
    /// is an error (a typo must not reach the model as a prompt).
    static func parse(_ line: String) throws(ChatError) -> ChatCommand? {
        guard line.hasPrefix("/") else { return nil }
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let name = words[0], rest = Array(words.dropFirst())
        func noArguments(_ command: ChatCommand) throws(ChatError) -> ChatCommand {
            guard rest.isEmpty else { throw ChatError("\(name) takes no arguments") }
            return command
        }
        func file(_ command: (String) -> ChatCommand) throws(ChatError) -> ChatCommand {
            guard !rest.isEmpty else { throw ChatError("\(name) needs a file name") }
            return command(rest.joined(separator: " "))
        }
        switch name {
        case "/help", "/?": return try noArguments(.help)
        case "/clear": return try noArguments(.clear)
        case "/bye", "/exit", "/quit": return try noArguments(.bye)
        case "/set":
            guard rest.count <= 2, rest.count != 1 else { throw ChatError("usage: /set NAME VALUE (/set alone lists them)") }
            return .set(rest.first, rest.last)
        case "/save": return try file(ChatCommand.save)
        case "/load": return try file(ChatCommand.load)
        default: throw ChatError("unknown command \(name) (/help lists the commands)")
        }
    }

    /// What `/help` prints.
    static let helpText = """
        Commands:
          /help, /?           this list
          /clear              start a new conversation (same model, same system prompt)
          /set                show the sampling settings
          /set NAME VALUE     change one for the next replies; NAME is one of
                              \(ChatSettings.names.joined(separator: ", "))
          /save FILE          write the conversation to FILE (JSON transcript)
          /load FILE          continue the conversation saved in FILE
          /bye, /exit         quit (Ctrl-D too)
        A line \"\"\" starts a multi-line message; a line ending with \"\"\" ends it.
        Ctrl-C stops a reply (the part already written stays in the conversation) or drops the line being typed.

        """
}

/// A chat command or turn that failed, in one line.
struct ChatError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
