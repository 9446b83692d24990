// Folds an executor's events into the entries and usage of one executor run.
import Foundation

/// Accumulates reasoning text, answer text, tool calls and usage from channel events. Output
/// usage grows with every `appendText` / `appendArguments` token count, so stream snapshots show
/// it growing; an `updateUsage` event replaces the counts with the executor's own.
struct ResponseCollector {
    private(set) var content = ""
    private(set) var reasoning = ""
    private(set) var input = LanguageModelSession.Usage.Input(totalTokenCount: 0, cachedTokenCount: 0)
    private(set) var output = LanguageModelSession.Usage.Output(totalTokenCount: 0, reasoningTokenCount: 0)
    private var reasoningID: String?
    private var responseID: String?
    private var toolCallsID: String?
    private var sawReasoning = false
    private var sawResponse = false
    /// Calls in the order the executor first mentioned them: (id, tool name, JSON arguments).
    private(set) var calls: [(id: String, name: String, arguments: String)] = []

    var usage: LanguageModelSession.Usage { .init(input: input, output: output) }

    mutating func apply(_ event: LanguageModelExecutorGenerationChannel.Event) {
        switch event {
        case let .reasoning(entryID, action):
            reasoningID = reasoningID ?? entryID
            sawReasoning = true
            switch action {
            case let .appendText(text, _, count):
                reasoning += text
                addTokens(count, reasoning: true)
            case let .replaceTextSegment(text, _, count):
                reasoning = text
                addTokens(count, reasoning: true)
            case let .updateUsage(i, o, _): report(i, o)
            case .updateSignature, .updateMetadata: break
            }
        case let .response(entryID, action):
            responseID = responseID ?? entryID
            switch action {
            case let .appendText(text, _, count):
                sawResponse = true
                content += text
                addTokens(count, reasoning: false)
            case let .replaceTextSegment(text, _, count):
                sawResponse = true
                content = text
                addTokens(count, reasoning: false)
            case let .updateUsage(i, o, _): report(i, o)
            case .updateCustomSegment, .addAttachmentSegment, .removeAttachmentSegment, .updateMetadata: break
            }
        case let .toolCalls(entryID, action):
            toolCallsID = toolCallsID ?? entryID
            switch action {
            case let .toolCall(id, name, .appendArguments(text, count)):
                if let i = calls.firstIndex(where: { $0.id == id }) { calls[i].arguments += text } else { calls.append((id, name, text)) }
                addTokens(count, reasoning: false)
            case .toolCall(_, _, .updateMetadata): break
            case let .removeToolCall(id): calls.removeAll { $0.id == id }
            case let .updateUsage(i, o, _): report(i, o)
            case .updateMetadata: break
            }
        }
    }

    private mutating func addTokens(_ tokens: Int, reasoning: Bool) {
        output.totalTokenCount += tokens
        if reasoning { output.reasoningTokenCount += tokens }
    }

    private mutating func report(_ i: LanguageModelSession.Usage.Input, _ o: LanguageModelSession.Usage.Output) {
        input = i
        output = o
    }

    /// The reasoning entry (if the model thought) and the tool-calls entry (if it called tools).
    /// The response entry is built by the caller, which knows whether the text is structured.
    var reasoningEntry: Transcript.Entry? {
        guard sawReasoning else { return nil }
        return .reasoning(.init(id: reasoningID ?? UUID().uuidString, segments: [.text(reasoning)]))
    }

    /// The calls as a transcript entry, or nil when there are none. Arguments that are not a JSON
    /// document become a JSON string (a tool whose arguments are text).
    func toolCallsEntry() -> Transcript.Entry? {
        guard !calls.isEmpty else { return nil }
        let parsed = calls.map { call in
            Transcript.ToolCall(id: call.id, toolName: call.name,
                                arguments: (try? GeneratedContent(json: call.arguments)) ?? call.arguments.generatedContent)
        }
        return .toolCalls(.init(id: toolCallsID ?? UUID().uuidString, parsed))
    }

    /// The id to give the response entry.
    var responseEntryID: String { responseID ?? UUID().uuidString }
    /// Whether the executor produced response text (as opposed to only tool calls).
    var hasResponse: Bool { sawResponse || calls.isEmpty }
}
