import Foundation
import Testing

@Suite struct GenerateCommandTests {
    let smollm = "\(repositoryRoot)/Models/SmolLM2-135M-Instruct.Q4_1.gguf"

    /// `--ids` output is one JSON line whose prompt ids are llama.cpp's (greedy-dev prompt 1) and
    /// whose greedy continuation starts with llama.cpp's tokens (steps before its first near-tie).
    @Test func greedyIdsMatchLlamaCppPrefix() throws {
        let r = try runQuanta(["generate", "--model", smollm, "--prompt", "The best way to learn programming is", "-n", "11", "--ids", "--threads", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: [Int]]
        #expect(json["prompt_ids"] == [504, 1450, 970, 288, 835, 6256, 314])
        // llama.cpp's first 11 greedy tokens for this prompt: every step before its first near-tie
        // (step 11, margin 0.01).
        #expect(json["generated_ids"] == [288, 1120, 351, 260, 10152, 284, 7443, 1485, 288, 540, 1784])
        #expect(r.stderr.contains("prompt tokens: 7, generated tokens: 11"))
        #expect(r.stdout.split(separator: "\n").count == 1)
    }

    @Test func badInputGetsClearErrors() throws {
        let cases: [([String], String)] = [
            (["generate", "--model", smollm, "--prompt", "hi", "-n", "0"], "-n must be"),
            (["generate", "--model", smollm, "--prompt", "hi", "-n", "-3"], "-n must be"),
            (["generate", "--model", smollm, "--prompt", "hi", "--temp", "-1"], "--temp must be"),
            (["generate", "--model", "/nonexistent.gguf", "--prompt", "hi"], "No such file"),
            (["generate", "--model", smollm], "a prompt is required: -p TEXT or -f FILE"),
            (["generate", "--model", smollm, "--prompt", String(repeating: "word ", count: 200), "--ctx", "64"], "context window holds 64"),
            (["generate", "--model", smollm, "--prompt", "hi", "--weights", "int3"], "unknown format"),
            (["perplexity", "--model", smollm, "--file", "/nonexistent.txt"], "cannot read"),
            (["perplexity", "--model", smollm, "--kl-divergence"], "--kl-divergence needs --kl-divergence-base PATH"),
            (["perplexity", "--model", smollm, "--kl-divergence", "--kl-divergence-base", "/nonexistent.kld"], "cannot read /nonexistent.kld"),
            (["perplexity", "--model", smollm, "--kl-divergence", "--kl-divergence-base", smollm], "is not a llama-perplexity log-probability file"),
            (["perplexity", "--model", smollm, "--file", smollm, "--chunks", "0"], "--chunks must be"),
        ]
        for (args, message) in cases {
            let r = try runQuanta(args)
            #expect(r.status == 1, "\(args): status \(r.status)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
    }
}
