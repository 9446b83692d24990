import Foundation
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

/// SmolLM2 (ChatML template, no think markers) through the public API.
enum SmolLM2 {
    static let url = PerplexityReference.root.appendingPathComponent("Models/SmolLM2-135M-Instruct.Q4_1.gguf")

    static func model(contextSize: Int = 1024) async throws -> LocalLanguageModel {
        try await LocalLanguageModel(contentsOf: url, configuration: .init(contextSize: contextSize, threads: 2))
    }

    static func prompt(_ text: String) -> Transcript.Entry {
        .prompt(.init(segments: [.text(.init(content: text))]))
    }

    static let greedy = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 40)
}

// Serialized: these share two cores and the tests time out less when they do not compete.
@Suite(.serialized) struct SessionTests {
    /// Turn 2 finds turn 1's prompt in the cache: the rows it prefilled. The rows its answer's
    /// decode steps wrote are summed in decode's order, so turn 2 prefills the answer again (and
    /// gets the bits a fresh session replaying the transcript gets: PrefixReuseEqualityTests).
    @Test func secondTurnReusesTheFirstTurnsPrompt() async throws {
        let model = try await SmolLM2.model()
        let session = LanguageModelSession(model: model, instructions: "You are a helpful assistant. Answer briefly.")
        let first = try await session.respond(to: "What is the capital of France?", options: SmolLM2.greedy)
        #expect(first.usage.input.cachedTokenCount == 0)
        #expect(!first.content.isEmpty)
        #expect(first.usage.output.reasoningTokenCount == 0)
        let afterFirst = session.transcript
        #expect(afterFirst.count == 3)   // instructions, prompt, response

        let second = try await session.respond(to: "And of Italy?", options: SmolLM2.greedy)
        // Independently: turn 1's prompt is turn 2's rendered history up to the reply's first token.
        let history = try model.loaded.render(afterFirst, addGenerationPrompt: false).tokens
        let firstPrompt = try model.loaded.render(Transcript(entries: afterFirst.prefix(2))).tokens
        #expect(Array(history.prefix(firstPrompt.count)) == firstPrompt)
        #expect(second.usage.input.cachedTokenCount == first.usage.input.totalTokenCount)
        #expect(first.usage.input.totalTokenCount == firstPrompt.count)
        #expect(second.usage.input.totalTokenCount > second.usage.input.cachedTokenCount)
        #expect(session.usage == first.usage + second.usage)
        #expect(session.transcript.count == 5)
    }

    /// `tokenCount(for:)` is exactly what the request then reports as input.
    @Test func tokenCountMatchesTheRequest() async throws {
        let model = try await SmolLM2.model()
        let session = LanguageModelSession(model: model)
        let expected = try await model.tokenCount(for: "Say hello.")
        let response = try await session.respond(to: "Say hello.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 4))
        #expect(response.usage.input.totalTokenCount == expected)
        #expect(response.usage.output.totalTokenCount <= 4)

        let next = Array(session.transcript) + [SmolLM2.prompt("Again.")]
        let expectedNext = try await model.tokenCount(for: next)
        let again = try await session.respond(to: "Again.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 4))
        #expect(again.usage.input.totalTokenCount == expectedNext)
        #expect(expectedNext > expected)
    }

    /// A prompt larger than the window throws before anything runs, with both numbers.
    @Test func oversizedPromptThrowsContextSizeExceeded() async throws {
        let model = try await SmolLM2.model(contextSize: 64)
        #expect(model.contextSize == 64)
        let text = String(repeating: "word ", count: 100)
        let needed = try await model.tokenCount(for: text)
        #expect(needed > 100)   // at least one token per word, plus the template
        let session = LanguageModelSession(model: model)
        await #expect(throws: LanguageModelError.contextSizeExceeded(.init(contextSize: 64, tokenCount: needed))) {
            try await session.respond(to: text)
        }
        #expect(!session.isResponding)
        #expect(session.transcript.isEmpty)
        #expect(session.usage == .init(input: .init(totalTokenCount: 0, cachedTokenCount: 0), output: .init(totalTokenCount: 0, reasoningTokenCount: 0)))
    }

    /// Without a limit, or with one beyond the room left, an answer that reaches the end of the
    /// window is `contextSizeExceeded` (as in FM27), and the session is left as it was.
    @Test func generationEndsAtTheWindow() async throws {
        let model = try await SmolLM2.model(contextSize: 48)
        for limit in [nil, 1000] as [Int?] {
            let session = LanguageModelSession(model: model)
            do {
                let response = try await session.respond(to: "Write a very long story about a dragon and a knight.",
                                                         options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: limit))
                Issue.record("no error for an answer cut at the window: \(response.content.debugDescription)")
            } catch let LanguageModelError.contextSizeExceeded(exceeded) {
                #expect(exceeded.contextSize == 48 && exceeded.tokenCount == 49)
            }
            #expect(!session.isResponding && session.transcript.isEmpty)
        }
    }

    /// The configured window never exceeds the trained one.
    @Test func contextSizeIsClampedToTheTrainedLength() async throws {
        let model = try await SmolLM2.model(contextSize: 1_000_000)
        #expect(model.contextSize == model.trainedContextSize)
        #expect(model.trainedContextSize == 8192)
    }

    /// SmolLM2 has no think markers, so every reasoning level is refused before running.
    @Test func reasoningLevelIsAnUnsupportedCapability() async throws {
        let model = try await SmolLM2.model()
        #expect(!model.capabilities.contains(.reasoning))
        let session = LanguageModelSession(model: model)
        for level: ContextOptions.ReasoningLevel in [.light, .moderate, .deep, .custom("budget:10"), .custom("none")] {
            do {
                _ = try await session.respond(to: "Hi", contextOptions: ContextOptions(reasoningLevel: level))
                Issue.record("\(level) was accepted")
            } catch let LanguageModelError.unsupportedCapability(e) {
                #expect(e.capability == .reasoning)
            }
        }
        #expect(session.transcript.isEmpty && !session.isResponding)
    }

    /// Streaming snapshots grow monotonically and end with what `respond` returns for the same
    /// conversation.
    @Test func streamingMatchesRespond() async throws {
        let model = try await SmolLM2.model()
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 12)
        let reference = try await LanguageModelSession(model: model).respond(to: "Name three colours.", options: options)

        let session = LanguageModelSession(model: model)
        var previous = "", snapshots = 0, last: LanguageModelSession.ResponseStream<String>.Snapshot?
        for try await snapshot in session.streamResponse(to: "Name three colours.", options: options) {
            #expect(snapshot.content.hasPrefix(previous))
            #expect(snapshot.usage.output.totalTokenCount >= (last?.usage.output.totalTokenCount ?? 0))
            previous = snapshot.content
            last = snapshot
            snapshots += 1
        }
        #expect(snapshots > 2)
        #expect(last?.content == reference.content)
        #expect(last?.usage == reference.usage)
        #expect(session.transcript.count == 2)
    }

    /// Cancelling mid-stream leaves the session idle, its transcript untouched, and its cache
    /// consistent: the next request answers exactly as a fresh session does.
    @Test func cancellationKeepsTheSessionConsistent() async throws {
        let model = try await SmolLM2.model()
        let session = LanguageModelSession(model: model)
        var seen = 0
        for try await _ in session.streamResponse(to: "Write a long story about a dragon.",
                                                  options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 200)) {
            seen += 1
            if seen == 3 { break }   // abandoning the stream cancels generation
        }
        for _ in 0..<200 where session.isResponding { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!session.isResponding)
        #expect(session.transcript.isEmpty)

        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 8)
        let after = try await session.respond(to: "What is two plus two?", options: options)
        let fresh = try await LanguageModelSession(model: model).respond(to: "What is two plus two?", options: options)
        #expect(after.content == fresh.content)
        #expect(after.usage.input.totalTokenCount == fresh.usage.input.totalTokenCount)
    }

    /// Cancelling during prefill stops between batches: the request throws, and the cache keeps
    /// only whole batches, which the next request reuses and continues exactly as a fresh
    /// session would. (Under a loaded test run the cancel can land after prefill instead; then
    /// the whole prompt but its last token is reused. Either way the next answer must match.)
    @Test func cancellingPrefillKeepsTheCacheConsistent() async throws {
        let model = try await SmolLM2.model()
        // About 1,000 tokens (the test model's window is 1,024): four prefill batches, seconds of
        // work here, so a cancel after 300 ms lands during prefill even on an idle machine.
        let long = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 92)
        #expect(try await model.tokenCount(for: long) > 768)
        let session = LanguageModelSession(model: model)
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 4)
        let task = Task { try await session.respond(to: long, options: options) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!session.isResponding && session.transcript.isEmpty)

        let after = try await session.respond(to: long, options: options)
        let cached = after.usage.input.cachedTokenCount, total = after.usage.input.totalTokenCount
        #expect(cached % 256 == 0 || cached == total - 1, "cached \(cached) of \(total)")
        let fresh = try await LanguageModelSession(model: model).respond(to: long, options: options)
        #expect(after.content == fresh.content)
        #expect(fresh.usage.input.cachedTokenCount == 0)
    }

    /// One request at a time; the transcript cannot change under a running request.
    @Test func concurrentRequestsAreRejected() async throws {
        let model = try await SmolLM2.model()
        let session = LanguageModelSession(model: model)
        let stream = session.streamResponse(to: "Hello!", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 6))
        #expect(session.isResponding)
        await #expect(throws: LanguageModelSession.Error.concurrentRequests) { try await session.respond(to: "Hi") }
        #expect(throws: LanguageModelSession.Error.transcriptMutationWhileResponding) {
            try session.updateTranscript { $0.removeAll() }
        }
        let response = try await stream.collect()
        #expect(!session.isResponding)
        #expect(session.transcript.count == 2)
        #expect(response.usage.output.totalTokenCount <= 6)
        try session.updateTranscript { $0.removeAll() }
        #expect(session.transcript.isEmpty)
    }

    /// `prewarm` computes the instructions ahead, so the first request finds them cached.
    @Test func prewarmCachesTheInstructions() async throws {
        let model = try await SmolLM2.model()
        let instructions = "You are a pirate. Answer in one sentence."
        let session = LanguageModelSession(model: model, instructions: instructions)
        session.prewarm()
        let response = try await session.respond(to: "Hello", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 2))
        let system = try model.loaded.render([session.transcript[0]], addGenerationPrompt: false).tokens.count
        #expect(system > 5)
        #expect(response.usage.input.cachedTokenCount == system)
    }

    /// Non-text content is refused with `unsupportedTranscriptContent`.
    @Test func attachmentsAreUnsupportedContent() async throws {
        let model = try await SmolLM2.model()
        let image = Transcript.Entry.prompt(.init(segments: [.attachment(.init(content: .image(.init(data: Data([1, 2, 3]))), label: "image"))]))
        let session = LanguageModelSession(model: model, transcript: Transcript(entries: [image]))
        do {
            _ = try await session.respond(to: "What is in the picture?")
            Issue.record("accepted an attachment")
        } catch let LanguageModelError.unsupportedTranscriptContent(e) {
            #expect(e.unsupportedContent == [image])
        }
        #expect(!session.isResponding)
    }

    /// Two models of one file share weights, loaded once even when the loads overlap.
    @Test func concurrentLoadsShareWeights() async throws {
        async let a = SmolLM2.model(contextSize: 128)
        async let b = SmolLM2.model(contextSize: 256)
        let (x, y) = try await (a, b)
        #expect(x.loaded === y.loaded)
        #expect(x.contextSize == 128 && y.contextSize == 256)
    }
}
