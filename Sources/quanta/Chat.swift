#if canImport(Glibc)
import Glibc
#endif
import CommandLineSpec
import Foundation
import Quanta

private let reasoningOption = OptionSpec(["--reasoning"], value: "LEVEL", "light|moderate|deep|none|budget:N (models with think markers)")

private let oneShotOption = OptionSpec(["-p", "--prompt"], value: "TEXT", "answer this one message, then exit")
private let oneShotFileOption = OptionSpec(["-f", "--file"], value: "PATH", "answer the message in a file (one trailing newline dropped), then exit")

private let noContextShiftOption = OptionSpec(["--no-context-shift"], "when the context is full, ask for /clear instead of dropping the oldest turns")

let chatSpec = CommandSpec(
    name: "chat",
    summary: "A multi-turn conversation through the library's LanguageModelSession, with line editing on a terminal.",
    options: [CommonOptions.system, oneShotOption, oneShotFileOption, reasoningOption, CommonOptions.predict(default: 512),
              noContextShiftOption]
        + CommonOptions.modelRunning(contextSize: 4096) + CommonOptions.sampling(temperature: 0.8, seed: -1)
        + IgnoredOptions.modelRunning + [IgnoredOptions.color, IgnoredOptions.jinja],
    notes: """
        Sampling defaults are llama.cpp's. -p or -f: answer that one message and exit. Otherwise each reply streams to
        stdout, thinking to stderr, and a usage line follows on stderr. On a terminal: a banner, line editing and history
        (libedit), \"\"\" for multi-line messages, /help for the commands (/clear, /set, /show, /save, /load, /bye).
        Piped input: one line per turn, no banner, no prompt. Ctrl-C ends the reply (in prefill too) and keeps what was
        written. A full context drops the oldest turns. Exit 1 if every turn failed.
        """)

/// `quanta chat`: a multi-turn conversation through the public `LanguageModelSession` API, like
/// `ollama run` or `llama-cli -cnv`. On a terminal it shows a banner and reads messages through
/// libedit; from a pipe it reads one line per turn with no banner or prompt. Lines starting
/// with `/` are commands (`ChatCommand`). With `-p` or `-f` it answers that one message and
/// exits, reading no input. Exits 1 when every turn failed, 0 otherwise.
func runChat(_ argv: [String]) async -> Int32 {
    let model: LocalLanguageModel
    var settings: ChatSettings
    let contextOptions: ContextOptions
    let system: String?, oneShot: String?
    do throws(UsageError) {
        guard let args = try parse(chatSpec, argv) else { return 0 }
        // The model's sampling defaults carry top-k, top-p, min-p, the penalty and the seed; the
        // requests leave the sampling mode nil so they apply.
        var sampling = try samplingDefaults(args, temperature: 0.8)
        sampling.seed = try seedOption(args, default: -1)
        settings = ChatSettings(sampling: sampling, maximumTokens: try predictCount(args, default: 512))
        switch (args.string(oneShotOption), args.string(oneShotFileOption)) {
        case let (text?, nil): oneShot = text
        case let (nil, path?): oneShot = try readPromptFile(path)
        case (nil, nil): oneShot = nil
        case (_?, _?): throw UsageError("give the message once: -p TEXT or -f FILE, not both")
        }
        settings.contextShift = !args.has(noContextShiftOption)
        contextOptions = ContextOptions(reasoningLevel: try reasoningLevel(args.string(reasoningOption)))
        system = args.string(CommonOptions.system)
        model = try await ModelSetup(args, defaultContext: 4096, sampling: sampling).model
    } catch {
        return fail(error, chatSpec)
    }

    let conversation = ChatConversation(model: model, system: system, settings: settings)
    if let oneShot {
        do {
            let interrupted = try await chatTurn(conversation, oneShot, contextOptions, interrupts: Interrupts(quitsBetweenReplies: true))
            return interrupted ? 130 : 0
        } catch {
            return fail("\(error)")
        }
    }
    let editor = isatty(0) != 0 ? LineEditor(program: "quanta") : nil
    if editor != nil { printError(chatBanner(model)) }
    let input = ChatInput(editor: editor)
    let interrupts = Interrupts(quitsBetweenReplies: editor == nil)
    var (turns, failures) = (0, 0)
    loop: while true {
        switch input.next() {
        case .end:
            // Ctrl-D at the prompt: end the prompt's line so the shell's starts on its own.
            if editor != nil { printError("\n") }
            break loop
        case .interrupted:
            printError("^C (Ctrl-D or /bye quits)\n")
        case let .text(line):
            if line.isEmpty { continue }
            let command: ChatCommand?
            do { command = try ChatCommand.parse(line) } catch {
                printError("quanta: error: \(error)\n")
                continue
            }
            if let command {
                do {
                    if try await perform(command, on: conversation) == .quit { break loop }
                } catch {
                    printError("quanta: error: \(error)\n")
                }
                continue
            }
            turns += 1
            do {
                let dropped = try await conversation.makeRoom(for: line)
                if dropped > 0 {
                    printError("[the context is full: dropped the \(dropped) oldest turn\(dropped == 1 ? "" : "s"); /clear starts over]\n")
                }
                try await chatTurn(conversation, line, contextOptions, interrupts: interrupts)
            } catch {
                failures += 1
                printError("quanta: error: \(error)\n")
            }
        }
    }
    return turns > 0 && failures == turns ? 1 : 0
}

/// Whether the chat goes on after a command.
private enum CommandResult { case proceed, quit }

/// Runs a command, printing what it did on stderr.
private func perform(_ command: ChatCommand, on conversation: ChatConversation) async throws(ChatError) -> CommandResult {
    switch command {
    case .help: printError(ChatCommand.helpText)
    case .bye: return .quit
    case .clear:
        conversation.clear()
        printError("[new conversation]\n")
    case let .set(name?, value?):
        try await conversation.set(name, value)
        printError("[\(conversation.settings.summary)]\n")
    case .set: printError("[\(conversation.settings.summary)]\n")
    case let .setSystem(text):
        conversation.setSystem(text)
        printError("[system instructions set; the conversation goes on under them]\n")
    case let .show(part):
        let parts = part.map { [$0] } ?? ChatCommand.ShowPart.allCases
        printError(parts.map { show($0, conversation) }.joined(separator: "\n") + "\n")
    case let .save(path):
        let turns = try conversation.save(to: path)
        printError("[saved \(turns) turn\(turns == 1 ? "" : "s") to \(path)]\n")
    case let .load(path):
        let turns = try conversation.load(from: path)
        printError("[loaded \(turns) turn\(turns == 1 ? "" : "s") from \(path); the conversation continues from there]\n")
    }
    return .proceed
}

/// One `/show` part, one line.
private func show(_ part: ChatCommand.ShowPart, _ conversation: ChatConversation) -> String {
    let model = conversation.model, configuration = model.configuration
    switch part {
    case .info:
        let threads = configuration.threads ?? ProcessInfo.processInfo.activeProcessorCount
        return "model: \(model.url.path) · context \(model.contextSize) tokens (trained \(model.trainedContextSize)) · "
            + "\(threads) thread\(threads == 1 ? "" : "s") · weights \(configuration.weights.rawValue) · KV cache \(configuration.kvCache.rawValue)"
    case .system:
        return "system: " + (conversation.system.map(quoted) ?? "(none)")
    case .parameters:
        return "parameters: \(conversation.settings.summary)"
    }
}

/// `--reasoning` spellings: the three levels, `none`, or `budget:N` (passed as `.custom`).
private func reasoningLevel(_ text: String?) throws(UsageError) -> ContextOptions.ReasoningLevel? {
    switch text {
    case nil: return nil
    case "light"?: return .light
    case "moderate"?: return .moderate
    case "deep"?: return .deep
    case let t? where t == "none" || t.hasPrefix("budget:") && Int(t.dropFirst(7)) != nil: return .custom(t)
    case let t?: throw UsageError("--reasoning must be light, moderate, deep, none or budget:N, got \(t)")
    }
}
