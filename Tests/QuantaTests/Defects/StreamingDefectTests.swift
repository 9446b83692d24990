// Streaming edge cases: usage in snapshots, abandoned streams and cancelled consumers.
import Foundation
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

@Suite(.serialized) struct StreamingDefectTests {
    /// Every snapshot's output usage is larger than the one before (it used to stay 0 until the
    /// last two snapshots).
    @Test func usageGrowsWithEverySnapshot() async throws {
        let session = LanguageModelSession(model: try await SmolLM2.model())
        var counts: [Int] = []
        for try await snapshot in session.streamResponse(to: "Name three colours.", options: SmolLM2.greedy) {
            counts.append(snapshot.usage.output.totalTokenCount)
        }
        #expect(counts.count > 5)
        // The final snapshot repeats the complete response; every earlier one adds a token.
        let growing = counts.dropLast()
        #expect(zip(growing, growing.dropFirst()).allSatisfy { $0 < $1 }, "\(counts)")
        #expect(counts.first == 1)
    }

    /// Leaving a stream loop frees the session at once: an immediate `respond` succeeds (it used
    /// to throw `concurrentRequests` for several milliseconds).
    @Test func breakingOutOfAStreamFreesTheSessionAtOnce() async throws {
        let session = LanguageModelSession(model: try await SmolLM2.model())
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 60)
        do {
            for try await _ in session.streamResponse(to: "Tell me a long story.", options: options) { break }
        }
        #expect(!session.isResponding)
        let next = try await session.respond(to: "Say hi.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 4))
        #expect(next.usage.output.totalTokenCount <= 4)
        // The abandoned request left nothing in the transcript.
        #expect(session.transcript.count == 2)
    }

    /// A consumer whose task is cancelled gets `CancellationError` from its loop instead of a
    /// normal end.
    @Test func cancelledConsumerThrowsCancellationError() async throws {
        let session = LanguageModelSession(model: try await SmolLM2.model())
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 200)
        let stream = session.streamResponse(to: "Count to one hundred.", options: options)
        let consumer = Task {
            var seen = 0
            for try await _ in stream {
                seen += 1
                if seen == 3 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return seen
        }
        let outcome = await consumer.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(!session.isResponding)
    }
}
