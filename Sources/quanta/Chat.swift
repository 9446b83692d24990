#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Quanta

private let reasoningOption = OptionSpec(["--reasoning"], value: "LEVEL", "light|moderate|deep|none|budget:N (models with think markers)")

let chatSpec = CommandSpec(
    name: "chat",
    summary: "A multi-turn conversation through the library's LanguageModelSession: one stdin line per turn.",
    options: [CommonOptions.system, reasoningOption, CommonOptions.predict] + CommonOptions.modelRunning + CommonOptions.sampling,
    notes: """
        Defaults: -n 512, llama.cpp's sampling (--temp 0.8, --top-k 40, --top-p 0.95, --min-p 0.05, random seed), -c 4096.
        Each reply streams to stdout, thinking to stderr, and a usage line follows on stderr. Ctrl-C ends the reply
        (in prefill too); /exit or end of input ends the chat.
        """)

/// `quanta chat`: a multi-turn conversation through the public `LanguageModelSession` API. Each
/// line on stdin is one user turn (`/exit` or end of input ends the chat); the reply streams to
/// stdout, thinking (for reasoning models) to stderr, and after every turn one usage line goes
/// to stderr:
/// `[usage] input 57 (cached 41), output 12 (reasoning 0), 48.1 tok/s`
/// where tok/s counts output tokens over the time from the end of prefill to the last token.
/// A `> ` prompt is shown only when stdin is a terminal, so piped input gives clean output.
/// Ctrl-C during a reply stops that reply (the session stays usable); elsewhere it quits.
func runChat(_ argv: [String]) async -> Int32 {
    let model: LocalLanguageModel
    let options: GenerationOptions
    let contextOptions: ContextOptions
    let system: String?
    do throws(UsageError) {
        guard let args = try parse(chatSpec, argv) else { return 0 }
        // The model's sampling defaults carry top-k, top-p, min-p, the penalty and the seed; the
        // requests leave the sampling mode nil so they apply.
        var sampling = try samplingDefaults(args, temperature: 0.8)
        sampling.seed = try seedOption(args)
        options = GenerationOptions(samplingMode: sampling.temperature == 0 ? .greedy : nil, temperature: sampling.temperature,
                                    maximumResponseTokens: try predictCount(args, default: 512))
        contextOptions = ContextOptions(reasoningLevel: try reasoningLevel(args.string(reasoningOption)))
        system = args.string(CommonOptions.system)
        model = try await ModelSetup(args, defaultContext: 4096, sampling: sampling).model
    } catch {
        return fail(error, chatSpec)
    }

    let session = LanguageModelSession(model: model, instructions: system)
    session.prewarm()
    let interactive = isatty(0) != 0
    while true {
        if interactive { printError("> ") }
        guard let line = readLine() else { break }
        let prompt = line.trimmingCharacters(in: .whitespaces)
        if prompt.isEmpty { continue }
        if prompt == "/exit" || prompt == "/quit" { break }
        do {
            try await chatTurn(session, prompt, options, contextOptions)
        } catch {
            printError("quanta: error: \(error)\n")
        }
    }
    return 0
}

/// Streams one reply and prints its usage line.
private func chatTurn(_ session: LanguageModelSession, _ prompt: String, _ options: GenerationOptions,
                      _ contextOptions: ContextOptions) async throws {
    // Ctrl-C ends the reply: the turn's task is cancelled, which the library sees between
    // prefill batches and before every token.
    installInterruptHandler()
    defer { signal(SIGINT, SIG_DFL) }
    let turn = ChatTurn()
    let outcome = await cancellingOnInterrupt {
        for try await snapshot in session.streamResponse(to: prompt, options: options, contextOptions: contextOptions) {
            turn.show(snapshot)
        }
    }
    if case let .failed(message) = outcome { throw ChatTurnError(message: message) }
    if outcome == .interrupted { printError("\nquanta: reply interrupted\n") }
    let (thought, decodeStart, usage) = (turn.thought, turn.decodeStart, turn.usage)
    if !thought.isEmpty { printError("\n") }
    writeOut("\n")
    let seconds = max(1e-9, monotonicSeconds() - (decodeStart ?? monotonicSeconds()))
    let input = usage?.input, output = usage?.output
    printError("[usage] input \(input?.totalTokenCount ?? 0) (cached \(input?.cachedTokenCount ?? 0)), "
        + "output \(output?.totalTokenCount ?? 0) (reasoning \(output?.reasoningTokenCount ?? 0)), "
        + "\(oneDecimal(Double(output?.totalTokenCount ?? 0) / seconds)) tok/s\n")
}

/// A turn's failure, printed as one line.
private struct ChatTurnError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// What one streamed reply has shown so far; filled by the turn's task, read after it ends.
private final class ChatTurn: @unchecked Sendable {
    var shown = "", thought = ""
    var decodeStart: Double?
    var usage: LanguageModelSession.Usage?

    func show(_ snapshot: LanguageModelSession.ResponseStream<String>.Snapshot) {
        if decodeStart == nil { decodeStart = monotonicSeconds() }
        let reasoning = snapshot.transcriptEntries.compactMap { entry -> String? in
            guard case let .reasoning(reasoning) = entry else { return nil }
            return reasoning.segments.map(\.description).joined()
        }.joined()
        // Snapshots are cumulative: print what is new. Compared in UTF-8 bytes, not Characters,
        // because appended text can merge with the last character ("\r" + "\n").
        if reasoning.utf8.count > thought.utf8.count {
            printError(String(decoding: reasoning.utf8.dropFirst(thought.utf8.count), as: UTF8.self))
            thought = reasoning
        }
        if snapshot.content.utf8.count > shown.utf8.count {
            writeOut(String(decoding: snapshot.content.utf8.dropFirst(shown.utf8.count), as: UTF8.self))
            shown = snapshot.content
        }
        usage = snapshot.usage
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
