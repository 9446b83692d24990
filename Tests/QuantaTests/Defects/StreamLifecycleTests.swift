// A response stream's lifecycle: `collect()` after the snapshots were iterated, and a consumer
// that leaves its loop while the stream value is still held.
// Time cap: about 10 s on two cores (SmolLM2, short greedy answers).
import Foundation
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

@Suite(.serialized) struct StreamLifecycleTests {
    /// `collect()` after a full `for try await` returns the final response (it threw
    /// `CancellationError`).
    @Test func collectAfterIterationReturnsTheResponse() async throws {
        let session = LanguageModelSession(model: try await SmolLM2.model())
        let stream = session.streamResponse(to: "Name three colours.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 12))
        var last: LanguageModelSession.ResponseStream<String>.Snapshot?
        for try await snapshot in stream { last = snapshot }
        let response = try await stream.collect()
        #expect(response.content == last?.content)
        #expect(response.usage == last?.usage)
        #expect(Array(response.transcriptEntries) == Array(session.transcript))
        // A second collect returns the same response.
        #expect(try await stream.collect().content == response.content)
    }

    /// `collect()` while an iteration has seen only some snapshots finishes the generation and
    /// returns the whole response, which continues what the iteration saw.
    @Test func collectAfterPartialIterationFinishesTheResponse() async throws {
        let session = LanguageModelSession(model: try await SmolLM2.model())
        let stream = session.streamResponse(to: "Name three colours.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 12))
        var iterator = stream.makeAsyncIterator()
        let first = try #require(try await iterator.next())
        let response = try await stream.collect()
        #expect(response.content.hasPrefix(first.content))
        #expect(response.usage.output.totalTokenCount > first.usage.output.totalTokenCount)
        #expect(session.transcript.count == 2 && !session.isResponding)
        withExtendedLifetime(iterator) {}

        // Collecting from inside the loop body works the same way.
        let again = session.streamResponse(to: "Name three animals.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 12))
        var collected: LanguageModelSession.Response<String>?
        for try await snapshot in again {
            collected = try await again.collect()
            #expect(collected!.content.hasPrefix(snapshot.content))
            break
        }
        #expect(collected?.usage.output.totalTokenCount ?? 0 > 1)
        #expect(session.transcript.count == 4 && !session.isResponding)
    }

    /// Leaving the loop early while the stream value stays referenced ends the request: the
    /// session is free at once and the next request runs (it threw `concurrentRequests`).
    @Test func breakingOutOfAHeldStreamEndsTheRequest() async throws {
        let session = LanguageModelSession(model: try await SmolLM2.model())
        let stream = session.streamResponse(to: "Tell me a long story.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 200))
        for try await _ in stream { break }
        #expect(!session.isResponding)
        let next = try await session.respond(to: "Say hi.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 4))
        #expect(next.usage.output.totalTokenCount <= 4)
        #expect(session.transcript.count == 2)   // the abandoned request left nothing
        // The abandoned request ended with cancellation, which `collect()` reports.
        await #expect(throws: CancellationError.self) { try await stream.collect() }
    }
}
