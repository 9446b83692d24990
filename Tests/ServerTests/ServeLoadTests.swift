import Foundation
import Testing

/// The short load run of `scripts/serve-load-test.py` (the long one is `make test-serve-load`):
/// 24 requests, 8 at a time, on 2 slots, chat and completions, whole and streamed, some
/// cancelled midway, some disconnected right after sending; each must end with a valid answer
/// or a clean error, none may hang, RSS after the run within 5 % of the warmed-up server's, and
/// SIGTERM exits 0. Time cap: about 15 s (one model load, about 1000 generated tokens).
@Suite(.serialized) struct ServeLoadTests {
    @Test func shortLoadRunEndsCleanly() throws {
        let result = try run("python3", ["\(repositoryRoot)/scripts/serve-load-test.py", "\(repositoryRoot)/.build/release/quanta", smollm,
                                         "--requests", "24"], timeout: 240)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("SIGTERM: exit 0"), "\(result.stdout)")
    }
}
