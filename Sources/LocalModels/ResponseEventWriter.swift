// Per-token bookkeeping of the local executor: sampled tokens become channel events and usage.
import LanguageModelAPI
import Foundation
import Tokenizers

/// Turns sampled tokens into channel events and usage: tracks whether the model is thinking,
/// spends the thinking budget, detokenizes reasoning and answer separately, and passes the
/// answer through an `AnswerFilter` (stop sequences, tool-call openings).
struct ResponseEventWriter {
    enum Phase { case start, thinking, answering }
    enum Outcome { case more, stop }

    package let loaded: LoadedModel
    let channel: LanguageModelExecutorGenerationChannel
    let thinkingBudget: Int
    let reasoningID = UUID().uuidString
    let responseID = UUID().uuidString
    private(set) var phase: Phase
    private(set) var generated = 0
    private(set) var reasoningTokens = 0
    private var thinkingTokens = 0
    private var reasoningText: StreamingDetokenizer
    private var answerText: StreamingDetokenizer
    private var filter: AnswerFilter

    init(loaded: LoadedModel, channel: LanguageModelExecutorGenerationChannel, startsInsideThinking: Bool,
         thinkingBudget: Int, filter: AnswerFilter) {
        self.loaded = loaded
        self.channel = channel
        self.thinkingBudget = thinkingBudget
        self.filter = filter
        phase = startsInsideThinking ? .thinking : .start
        reasoningText = StreamingDetokenizer(tokenizer: loaded.tokenizer)
        answerText = StreamingDetokenizer(tokenizer: loaded.tokenizer)
    }

    var usage: LanguageModelExecutorGenerationChannel.Usage.Output {
        .init(totalTokenCount: generated, reasoningTokenCount: reasoningTokens)
    }

    /// Whether the next token belongs to the answer (not to a think block).
    var isAnswering: Bool { phase != .thinking }

    /// Whether `token`, emitted next, is part of the answer: not a thought, and not the opening
    /// marker that starts the think block.
    func isAnswerToken(_ token: Int32) -> Bool {
        phase == .answering || phase == .start && token != loaded.thinkMarkers?.open
    }

    /// The think block's opening marker while the model may still open one (nothing generated).
    var thinkOpening: Int32? { phase == .start ? loaded.thinkMarkers?.open : nil }

    /// Whether the answer was held back as a tool call.
    var filterHeldCall: Bool { filter.isCall }

    /// `</think>` once the thinking budget is spent, else nil (sample).
    var forcedToken: Int32? {
        guard phase == .thinking, thinkingTokens >= thinkingBudget else { return nil }
        return loaded.thinkMarkers?.close
    }

    /// Accounts for one generated token and sends its event.
    mutating func emit(_ token: Int32) async -> Outcome {
        generated += 1
        let endOfGeneration = loaded.tokenizer.endOfGenerationIDs.contains(token)
        switch phase {
        case .start where token == loaded.thinkMarkers?.open:
            phase = .thinking
            reasoningTokens += 1
            await channel.send(.reasoning(entryID: reasoningID, action: .appendText("", tokenCount: 1)))
            return .more
        case .thinking where endOfGeneration:
            // The model stopped without closing its think block: the end token is no thought.
            phase = .answering
            await channel.send(.reasoning(entryID: reasoningID, action: .appendText(reasoningText.flush(), tokenCount: 0)))
            await channel.send(.response(entryID: responseID, action: .appendText("", tokenCount: 1)))
            return .stop
        case .thinking:
            reasoningTokens += 1
            if token == loaded.thinkMarkers?.close {
                phase = .answering
                await channel.send(.reasoning(entryID: reasoningID, action: .appendText(reasoningText.flush(), tokenCount: 1)))
                return .more
            }
            thinkingTokens += 1
            await channel.send(.reasoning(entryID: reasoningID, action: .appendText(reasoningText.append(token), tokenCount: 1)))
            return .more
        case .start, .answering:
            phase = .answering
            let (text, stop) = endOfGeneration ? ("", false) : filter.push(answerText.append(token))
            await channel.send(.response(entryID: responseID, action: .appendText(text, tokenCount: 1)))
            return endOfGeneration || stop ? .stop : .more
        }
    }

    /// Sends text still held back by the detokenizers and the filter; returns the whole answer
    /// text (a held tool call and any markup included) for tool-call parsing.
    mutating func finish() async -> String {
        let thought = reasoningText.flush()
        if !thought.isEmpty {
            await channel.send(.reasoning(entryID: reasoningID, action: .appendText(thought, tokenCount: 0)))
        }
        _ = filter.push(answerText.flush())
        let rest = filter.finish()
        if !rest.isEmpty {
            await channel.send(.response(entryID: responseID, action: .appendText(rest, tokenCount: 0)))
        }
        return filter.text
    }

    /// Sends what an answer held as a call that did not parse leaves to show: its text without
    /// tool markup.
    mutating func releaseHeldCall() async {
        let rest = filter.release()
        if !rest.isEmpty { await channel.send(.response(entryID: responseID, action: .appendText(rest, tokenCount: 0))) }
    }
}
