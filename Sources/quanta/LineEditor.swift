// Terminal line input through libedit (Debian's libedit-dev): cursor movement, emacs key
// bindings, history on Up/Down, and raw (non-canonical) reads, so a pasted line of any length
// arrives whole instead of being cut at the 4,095 bytes of the terminal's canonical mode.
#if canImport(Glibc)
import Glibc
#endif
import CLineEdit

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

/// One libedit editor on the terminal (stdin for keys, stderr for the prompt and echo, so stdout
/// carries only replies). Only for a stdin that is a terminal.
final class LineEditor {
    private let editor: OpaquePointer
    private let history: OpaquePointer

    /// An editor for `program` (the name ~/.editrc sections use); nil when libedit cannot start.
    init?(program: String) {
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
        // libedit restores the terminal on SIGTSTP/SIGCONT and follows SIGWINCH resizes.
        quanta_el_handle_signals(editor, 1)
        // Ctrl-C while typing is a key that drops the line (as in a shell), not a signal that
        // would end the chat: the editing mode turns ISIG off and binds ^C.
        quanta_el_setty(editor, "-isig")
        quanta_el_bind_function(editor, "quanta-drop-line", "drop the line being typed", { _, _ in
            ctrlCPressed = true
            return UInt8(CC_EOF)
        }, "^C")
        quanta_el_source(editor)
    }

    deinit {
        el_end(editor)
        history_end(history)
    }

    /// Shows `prompt` and reads one edited line.
    func read(prompt: String) -> EditedLine {
        free(currentPrompt)
        currentPrompt = strdup(prompt)
        ctrlCPressed = false
        var count: Int32 = 0
        guard let text = el_gets(editor, &count), count > 0 else { return ctrlCPressed ? .interrupted : .end }
        var line = String(cString: text)
        if line.hasSuffix("\n") { line.removeLast() }
        return .line(line)
    }

    /// Adds `line` to the history Up and Down walk through.
    func remember(_ line: String) {
        quanta_history_enter(history, line)
    }
}
