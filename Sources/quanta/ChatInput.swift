import Foundation

/// Where the chat's messages come from: the line editor on a terminal, plain lines from a pipe.
/// A line `"""` (or one starting with it) opens a multi-line message that a line ending with
/// `"""` closes, so a pasted paragraph is one turn instead of one turn per line.
final class ChatInput {
    /// What `next` read.
    enum Message: Equatable {
        /// A message or command, lines joined with "\n".
        case text(String)
        /// Ctrl-C at the prompt: the message being typed was dropped.
        case interrupted
        /// End of input.
        case end
    }

    private let editor: LineEditor?

    /// `editor` nil: read stdin lines with no prompt (piped input).
    init(editor: LineEditor?) {
        self.editor = editor
    }

    /// The next message.
    func next() -> Message {
        let first: String
        switch read(prompt: ">>> ") {
        case let .line(line): first = line
        case .interrupted: return .interrupted
        case .end: return .end
        }
        let trimmed = first.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("\"\"\"") else {
            editor?.remember(first)
            return .text(trimmed)
        }
        var lines: [String] = []
        var line = String(trimmed.dropFirst(3))
        while true {
            if line.hasSuffix("\"\"\"") {
                lines.append(String(line.dropLast(3)))
                break
            }
            lines.append(line)
            switch read(prompt: "... ") {
            case let .line(next): line = next
            case .interrupted: return .interrupted
            // An unclosed block at the end of input is still a message.
            case .end: return lines.isEmpty ? .end : .text(lines.joined(separator: "\n"))
            }
        }
        let message = lines.joined(separator: "\n")
        editor?.remember("\"\"\"" + message + "\"\"\"")
        return .text(message.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private func read(prompt: String) -> EditedLine {
        if let editor { return editor.read(prompt: prompt) }
        return readLine().map(EditedLine.line) ?? .end
    }
}
