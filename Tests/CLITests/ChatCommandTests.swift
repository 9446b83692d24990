import Foundation
import Testing

@Suite struct ChatCommandTests {
    let smollm = "\(repositoryRoot)/Models/SmolLM2-135M-Instruct.Q4_1.gguf"

    /// Three piped turns: three replies on stdout, three usage lines on stderr, and from the
    /// second turn on, the cache holds every earlier turn (cached grows past the previous input).
    /// Greedy: a sampled reply may hold a token sequence its own text does not tokenize back to,
    /// and the reuse then stops at that token (as in llama.cpp).
    @Test func threePipedTurns() throws {
        let r = try runQuanta(["chat", "--model", smollm, "--system", "Answer in one short sentence.", "-n", "24", "--temp", "0",
                               "--ctx", "1024", "--threads", "2"],
                              stdin: "What is the capital of France?\nAnd of Spain?\nThank you!\n")
        #expect(r.status == 0, "\(r.stderr)")
        let usage = r.stderr.split(separator: "\n").filter { $0.hasPrefix("[usage] ") }
        #expect(usage.count == 3, "\(r.stderr)")
        // "[usage] input I (cached C), output O (reasoning R), T tok/s"
        let numbers = usage.map { line in
            line.split(whereSeparator: { !$0.isNumber && $0 != "." }).compactMap { Double($0) }
        }
        #expect(numbers.allSatisfy { $0.count == 5 })
        guard numbers.count == 3, numbers.allSatisfy({ $0.count == 5 }) else { return }
        for i in 1..<3 {
            // This turn's cache covers the previous turn's whole input plus its reply.
            #expect(numbers[i][1] == numbers[i - 1][0] + numbers[i - 1][2])
            #expect(numbers[i][0] > numbers[i][1])
        }
        #expect(numbers.allSatisfy { $0[3] == 0 && $0[2] > 0 && $0[2] <= 24 && $0[4] > 0 })
        #expect(r.stdout.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }.count >= 3)
        #expect(!r.stderr.contains("> "))   // no interactive prompt when stdin is a pipe
    }

    @Test func badReasoningLevelIsAUsageError() throws {
        let r = try runQuanta(["chat", "--model", smollm, "--reasoning", "extreme"], stdin: "")
        #expect(r.status == 1)
        #expect(r.stderr.contains("--reasoning must be"))
    }

    /// SmolLM2 has no think markers: each turn fails with the capability error and the chat goes
    /// on; as every turn failed, the exit status is 1.
    @Test func reasoningOnSmolLM2IsReported() throws {
        let r = try runQuanta(["chat", "--model", smollm, "--reasoning", "light", "--ctx", "256", "-n", "4"], stdin: "Hi\nAgain\n")
        #expect(r.status == 1)
        #expect(r.stderr.components(separatedBy: "does not support reasoning").count == 3
            || r.stderr.components(separatedBy: "no think markers").count == 3, "\(r.stderr)")
    }
}
