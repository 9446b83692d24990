// Folds an executor's events into the response the session returns.
import Foundation

/// Accumulates reasoning text, answer text and the latest usage from channel events.
struct ResponseCollector {
    private(set) var content = ""
    private(set) var reasoning = ""
    private(set) var usage = Usage()
    private var reasoningID: String?
    private var responseID: String?
    private var sawReasoning = false

    mutating func apply(_ event: LanguageModelExecutorGenerationChannel.Event) {
        switch event {
        case let .reasoning(entryID, .appendText(text, _, _)):
            reasoningID = reasoningID ?? entryID
            sawReasoning = true
            reasoning += text
        case let .response(entryID, .appendText(text, _, _)):
            responseID = responseID ?? entryID
            content += text
        case let .response(_, .updateUsage(input, output)):
            usage = Usage(input: input, output: output)
        }
    }

    /// The reasoning entry (if the model thought) and the response entry.
    var entries: [Transcript.Entry] {
        var out: [Transcript.Entry] = []
        if sawReasoning {
            out.append(.reasoning(.init(id: reasoningID ?? UUID().uuidString, segments: [.text(.init(content: reasoning))])))
        }
        out.append(.response(.init(id: responseID ?? UUID().uuidString, segments: [.text(.init(content: content))])))
        return out
    }

    var snapshot: LanguageModelSession.ResponseStream<String>.Snapshot {
        .init(content: content, transcriptEntries: entries[...], usage: usage)
    }
}

