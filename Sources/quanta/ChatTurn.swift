#if canImport(Glibc)
import Glibc
#endif
import Quanta

/// One streamed reply: the answer to stdout, thinking to stderr, then one usage line on stderr:
/// `[usage] input 57 (cached 41), output 12 (reasoning 0), 48.1 tok/s`
/// where tok/s counts output tokens over the time from the end of prefill to the last token.
/// Ctrl-C cancels the request (in prefill too); what was streamed until then is kept in the
/// conversation and counted. Returns whether Ctrl-C cut the reply.
@discardableResult
func chatTurn(_ conversation: ChatConversation, _ prompt: String, _ contextOptions: ContextOptions,
              interrupts: Interrupts) async throws -> Bool {
    let session = conversation.session, options = conversation.settings.options
    let turn = ChatTurn()
    let outcome = await interrupts.run {
        do {
            for try await snapshot in session.streamResponse(to: prompt, options: options, contextOptions: contextOptions) {
                turn.show(snapshot)
            }
        } catch LanguageModelError.contextSizeExceeded where !turn.entries.isEmpty {
            // The reply ran into the end of the window (the session's request fails, as in FM27):
            // like llama.cpp, the chat keeps what was shown, and says below that the context is full.
            turn.filledContext = true
        }
    }
    if case let .failed(message) = outcome { throw ChatError(message) }
    if !turn.thought.isEmpty { printError("\n") }
    writeOut("\n")
    if turn.filledContext { conversation.keep(prompt: prompt, produced: turn.entries) }
    if outcome == .interrupted {
        conversation.keep(prompt: prompt, produced: turn.entries)
        printError(turn.entries.isEmpty ? "[reply interrupted before its first token]\n"
            : "[reply interrupted; the part above stays in the conversation]\n")
    }
    let seconds = max(1e-9, monotonicSeconds() - (turn.decodeStart ?? monotonicSeconds()))
    let input = turn.usage?.input, output = turn.usage?.output
    printError("[usage] input \(input?.totalTokenCount ?? 0) (cached \(input?.cachedTokenCount ?? 0)), "
        + "output \(output?.totalTokenCount ?? 0) (reasoning \(output?.reasoningTokenCount ?? 0)), "
        + "\(oneDecimal(Double(output?.totalTokenCount ?? 0) / seconds)) tok/s\n")
    let contextSize = conversation.model.contextSize
    if let input, let output, input.totalTokenCount + output.totalTokenCount >= contextSize {
        printError(conversation.settings.contextShift
            ? "[the context is full (\(contextSize) tokens): the next message drops the oldest turns; /clear starts over]\n"
            : "[the context is full (\(contextSize) tokens): /clear starts over, or /set context_shift on]\n")
    }
    return outcome == .interrupted
}

/// What one streamed reply has shown so far; filled by the turn's task, read after it ends.
private final class ChatTurn: @unchecked Sendable {
    var shown = "", thought = ""
    /// Whether the reply was cut by the end of the context window.
    var filledContext = false
    var decodeStart: Double?
    var usage: LanguageModelSession.Usage?
    /// The reasoning and response entries of the last snapshot.
    var entries: ArraySlice<Transcript.Entry> = []

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
        entries = snapshot.transcriptEntries
    }
}
