// Terminal line input through libedit (Debian's libedit-dev): cursor movement, emacs key
// bindings, history on Up/Down, and raw (non-canonical) reads, so a pasted line of any length
// arrives whole instead of being cut at the 4,095 bytes of the terminal's canonical mode.
// Bracketed paste (the terminal wraps a paste in ESC[200~ … ESC[201~) keeps a multi-line paste
// in one message instead of sending each line as it arrives.
#if canImport(Glibc)
import Glibc
#endif
import CLineEdit
import Foundation

/// What one `LineEditor.read` got.
enum EditedLine: Equatable {
    /// A line, without its newline.
    case line(String)
    /// Ctrl-C: the line being typed was dropped.
    case interrupted
    /// Ctrl-D on an empty line, or the terminal went away.
    case end
}

/// The prompt libedit shows; its prompt callback is a C function, so the text lives here.
nonisolated(unsafe) private var currentPrompt: UnsafeMutablePointer<CChar>? = strdup("")
/// Set by the Ctrl-C key function, read after `el_gets` returns.
nonisolated(unsafe) private var ctrlCPressed = false
/// The lines of a multi-line paste, set by the paste key function (which ends the edit), read
/// after `el_gets` returns.
nonisolated(unsafe) private var pastedLines: [String]?

/// One libedit editor on the terminal (stdin for keys, stderr for the prompt and echo, so stdout
/// carries only replies). Only for a stdin that is a terminal.
final class LineEditor {
    private let editor: OpaquePointer
    private let history: OpaquePointer

    /// An editor for `program` (the name ~/.editrc sections use); nil when libedit cannot start.
    init?(program: String) {
        // libedit decodes multi-byte characters as the locale at `el_init` says; the C locale
        // would show "é" as octal escapes.
        // (An environment naming a locale that is not installed gets nil.)
        let locale = setlocale(LC_CTYPE, "").map { String(cString: $0) }
        if locale == nil || locale == "C" || locale == "POSIX" { setlocale(LC_CTYPE, "C.UTF-8") }
        guard let input = fdopen(0, "r"), let output = fdopen(2, "w"),
              let editor = el_init(program, input, output, output) else { return nil }
        guard let history = history_init() else {
            el_end(editor)
            return nil
        }
        self.editor = editor
        self.history = history
        quanta_el_use_emacs(editor)
        quanta_history_set_size(history, 1000)
        quanta_el_set_history(editor, history)
        quanta_el_set_prompt(editor) { _ in currentPrompt }
        // No libedit signal handlers: they replace SIGINT's disposition while editing, and after
        // that Ctrl-C no longer reached the chat's SIGINT source during replies.
        quanta_el_handle_signals(editor, 0)
        // Ctrl-C while typing is a key that drops the line (as in a shell), not a signal that
        // would end the chat: the editing mode turns ISIG off and binds ^C.
        quanta_el_setty(editor, "-isig")
        quanta_el_bind_function(editor, "quanta-drop-line", "drop the line being typed", { _, _ in
            ctrlCPressed = true
            return UInt8(CC_EOF)
        }, "^C")
        quanta_el_bind_function(editor, "quanta-paste", "take a bracketed paste whole", { editor, _ in
            let text = readPaste()
            guard text.contains("\n") else {
                el_insertstr(editor, text)
                return UInt8(CC_REFRESH)
            }
            pastedLines = text.components(separatedBy: "\n")
            return UInt8(CC_NEWLINE)
        }, "\u{1b}[200~")
        quanta_el_source(editor)
    }

    deinit {
        el_end(editor)
        history_end(history)
    }

    /// Shows `prompt` and reads one edited line, which holds newlines when a multi-line paste
    /// was part of it: the paste's last line stays on the prompt for editing, and Enter ends it.
    func read(prompt: String) -> EditedLine {
        var before = ""
        var prompt = prompt
        while true {
            let edit = readEdit(prompt: prompt)
            guard let lines = pastedLines else {
                guard case let .line(line) = edit else { return edit }
                return .line(before + line)
            }
            pastedLines = nil
            if case let .line(typed) = edit { before += typed }
            // The paste ended the edit: show its complete lines and go on with the last one.
            let complete = lines.dropLast()
            before += complete.joined(separator: "\n") + "\n"
            printError(complete.enumerated().map { $0.offset == 0 ? $0.element : "... " + $0.element }.joined(separator: "\n") + "\n")
            el_push(editor, lines.last ?? "")
            prompt = "... "
        }
    }

    /// One `el_gets`: the line without its newline (empty when a paste ended it).
    private func readEdit(prompt: String) -> EditedLine {
        free(currentPrompt)
        currentPrompt = strdup(prompt)
        ctrlCPressed = false
        // Raw mode before anything of the prompt shows: libedit draws the prompt first and
        // switches after, and a Ctrl-D typed between the two reaches the canonical-mode line
        // discipline, which keeps it as a NUL byte, not an end of input.
        quanta_el_prepare_terminal(editor, 1)
        // Bracketed paste on only while editing, so text pasted during a reply stays plain.
        printError("\u{1b}[?2004h")
        defer { printError("\u{1b}[?2004l") }
        var count: Int32 = 0
        let text = el_gets(editor, &count)
        if ctrlCPressed { return .interrupted }
        guard let text, count > 0 else { return pastedLines != nil ? .line("") : .end }
        var line = String(cString: text)
        if line.hasSuffix("\n") { line.removeLast() }
        return .line(line)
    }

    /// Adds `line` to the history Up and Down walk through.
    func remember(_ line: String) {
        quanta_history_enter(history, line)
    }
}

/// The rest of a bracketed paste, read byte by byte up to its end marker (libedit reads one byte
/// at a time too, so nothing of the paste is in its buffer). Line ends become "\n".
private func readPaste() -> String {
    let end = Array("\u{1b}[201~".utf8)
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while read(0, &byte, 1) == 1 {
        bytes.append(byte)
        if bytes.count >= end.count && Array(bytes.suffix(end.count)) == end {
            bytes.removeLast(end.count)
            break
        }
    }
    return String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        .replacingOccurrences(of: "\r", with: "\n")
}
