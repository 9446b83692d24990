import CommandLineSpec
import Foundation

/// A line starting with `/`: a chat command, never sent to the model.
enum ChatCommand: Equatable {
    case help
    case clear
    case bye
    /// `/set` alone shows the settings; `/set NAME VALUE` changes one for the next turns.
    case set(String?, String?)
    /// `/set system TEXT`: new system instructions for the conversation.
    case setSystem(String)
    /// `/show` shows everything; `/show info|system|parameters` one part.
    case show(ShowPart?)
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
        case "/set" where rest.first == "system":
            // The rest of the line as typed, spaces and all.
            let text = line.dropFirst(name.count).drop { $0 == " " }.dropFirst("system".count).trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { throw ChatError("usage: /set system TEXT") }
            return .setSystem(text)
        case "/set":
            guard rest.count <= 2, rest.count != 1 else { throw ChatError("usage: /set NAME VALUE (/set alone lists them)") }
            return .set(rest.first, rest.last)
        case "/show":
            guard rest.count <= 1 else { throw ChatError("usage: /show [\(ShowPart.allCases.map(\.rawValue).joined(separator: "|"))]") }
            guard let word = rest.first else { return .show(nil) }
            guard let part = ShowPart(rawValue: word) else {
                let hint = closestMatch(to: word, among: ShowPart.allCases.map(\.rawValue)).map { "; did you mean '\($0)'?" } ?? ""
                throw ChatError("/show \(word): unknown\(hint) (/show takes \(ShowPart.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return .show(part)
        case "/save": return try file(ChatCommand.save)
        case "/load": return try file(ChatCommand.load)
        default:
            let hint = closestMatch(to: name, among: names).map { "; did you mean \($0)?" } ?? ""
            throw ChatError("unknown command \(name)\(hint) (/help lists the commands)")
        }
    }

    /// Every command's spellings, for "did you mean".
    static let names = ["/help", "/?", "/clear", "/bye", "/exit", "/quit", "/set", "/show", "/save", "/load"]

    /// What `/show WORD` shows.
    enum ShowPart: String, CaseIterable {
        /// The model file, context, threads, weights and cache.
        case info
        /// The system instructions.
        case system
        /// The sampling settings (as `/set` alone).
        case parameters
    }

    /// What `/help` prints.
    static let helpText = """
        Commands:
          /help, /?           this list
          /clear              start a new conversation (same model, same system prompt)
          /set                show the sampling settings
          /set NAME VALUE     change one for the next replies; NAME is one of
                              \(ChatSettings.names.joined(separator: ", "))
          /set system TEXT    new system instructions (the conversation so far stays)
          /show               the model, the system instructions and the settings
          /show PART          one of them: info, system, parameters
          /save FILE          write the conversation to FILE (JSON transcript)
          /load FILE          continue a conversation from FILE: one /save wrote, or a JSON array of
                              {"role", "content"} messages (what quanta template reads)
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
