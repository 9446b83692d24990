// Apple's feedback attachments: an app records what the user thought of a response. Apple's
// goes to Feedback Assistant; Quanta's is the same information as JSON, for the app to store or
// send wherever its bug reports go.
import Foundation
import JSON

/// What a user thought of a response.
public struct LanguageModelFeedback {
    /// The overall judgement.
    public enum Sentiment: String, Sendable, CaseIterable, Hashable, Codable {
        case positive, negative, neutral
    }

    /// One thing that was wrong.
    public struct Issue: Sendable {
        /// The kinds of problems.
        public enum Category: String, Sendable, CaseIterable, Hashable, Codable {
            case unhelpful, tooVerbose, didNotFollowInstructions, incorrect, stereotypeOrBias
            case suggestiveOrSexual, vulgarOrOffensive, triggeredGuardrailUnexpectedly
        }

        let category: Category
        let explanation: String?

        /// An issue and, optionally, the user's words about it.
        public init(category: Category, explanation: String? = nil) {
            self.category = category
            self.explanation = explanation
        }
    }
}

extension LanguageModelSession {
    /// A JSON feedback record: the sentiment, the issues, the transcript so far and the output
    /// the user wanted instead.
    @discardableResult
    public func logFeedbackAttachment(sentiment: LanguageModelFeedback.Sentiment?, issues: [LanguageModelFeedback.Issue] = [],
                                      desiredOutput: Transcript.Entry? = nil) -> Data {
        struct Record: Encodable {
            let sentiment: LanguageModelFeedback.Sentiment?
            let issues: [[String: String]]
            let transcript: Transcript
            let desiredOutput: Transcript?
        }
        let record = Record(sentiment: sentiment,
                            issues: issues.map { ["category": $0.category.rawValue, "explanation": $0.explanation ?? ""] },
                            transcript: transcript, desiredOutput: desiredOutput.map { Transcript(entries: [$0]) })
        return Data(((try? JSONValueEncoder(sortedKeys: true).text(of: record)) ?? "").utf8)
    }

    /// As `logFeedbackAttachment(sentiment:issues:desiredOutput:)`, the wanted output as text.
    @discardableResult
    public func logFeedbackAttachment(sentiment: LanguageModelFeedback.Sentiment?, issues: [LanguageModelFeedback.Issue] = [],
                                      desiredResponseText: String?) -> Data {
        logFeedbackAttachment(sentiment: sentiment, issues: issues,
                              desiredOutput: desiredResponseText.map { .response(.init(assetIDs: [], segments: [.text($0)])) })
    }

    /// As `logFeedbackAttachment(sentiment:issues:desiredOutput:)`, the wanted output as content.
    @discardableResult
    public func logFeedbackAttachment(sentiment: LanguageModelFeedback.Sentiment?, issues: [LanguageModelFeedback.Issue] = [],
                                      desiredResponseContent: (any ConvertibleToGeneratedContent)?) -> Data {
        let entry = desiredResponseContent.map { content -> Transcript.Entry in
            let source = String(describing: type(of: content))
            return .response(.init(assetIDs: [], segments: [.structure(.init(schemaName: source, content: content.generatedContent))]))
        }
        return logFeedbackAttachment(sentiment: sentiment, issues: issues, desiredOutput: entry)
    }
}
