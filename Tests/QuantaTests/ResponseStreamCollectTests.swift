// `ResponseStream.collect()` as FM27 declares it (`nonisolated(nonsending)`, returning a
// `sending` response): a main-actor caller collects the stream it made and iterated, and after
// the snapshots were iterated to the end it still gets the whole response (as on Apple's
// platforms). With the former nonisolated `collect()`, the same code in an app's main-actor
// method did not compile ("sending 'stream' risks causing data races"), and a collect after a
// full iteration threw `CancellationError`.
// Time cap: well under 1 s (a scripted model, no weights).
import Foundation
import Testing
import Quanta

@Suite struct ResponseStreamCollectTests {
    @MainActor @Test func collectAfterIteratingOnTheMainActor() async throws {
        let session = LanguageModelSession(model: ScriptedModel())
        let stream = session.streamResponse(to: "Hi")
        var last: String?
        for try await snapshot in stream { last = snapshot.content }
        let response = try await stream.collect()
        #expect(last == "reply from scripted")
        #expect(response.content == "reply from scripted")
        #expect(response.transcriptEntries.count == 2)   // the prompt and the response
    }

    @MainActor @Test func collectWithoutIterating() async throws {
        let session = LanguageModelSession(model: ScriptedModel())
        let response = try await session.streamResponse(to: "Hi").collect()
        #expect(response.content == "reply from scripted")
        #expect(!session.isResponding)
    }
}
