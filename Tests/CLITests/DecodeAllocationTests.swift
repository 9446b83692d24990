import Foundation
import Testing

/// The decode path allocates nothing per token after warm-up: `quanta generate` runs under an
/// LD_PRELOAD shim (compiled here with the toolchain's clang) that counts `malloc` calls and
/// prints the total at exit. Two runs that differ only in the number of generated tokens give the
/// mallocs per extra token, which covers the whole forward pass (matmuls, attention, KV cache,
/// buffers) plus the library's decode loop that `generate` runs on (`complete`): the sampled
/// token's one-element batch is reused, the streaming detokenizer copies each token's bytes from
/// a table decoded once, and the logits row is the one array made per token (measured 1.1–1.9 per
/// token for SmolLM2, 0.2–0.4 for Gemma, across runs).
@Suite struct DecodeAllocationTests {
    static let counter = """
        #include <stdio.h>
        #include <stddef.h>
        #include <stdatomic.h>
        extern void *__libc_malloc(size_t);
        static _Atomic long count;
        void *malloc(size_t n) { atomic_fetch_add(&count, 1); return __libc_malloc(n); }
        __attribute__((destructor)) static void report(void) { fprintf(stderr, "mallocs: %ld\\n", (long)count); }
        """

    /// Builds the shim with the Swift toolchain's clang (or the system cc); nil when neither works.
    static func buildCounter() throws -> String? {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("quanta-malloc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let source = dir.appendingPathComponent("count.c"), library = dir.appendingPathComponent("count.so")
        try counter.write(to: source, atomically: true, encoding: .utf8)
        for compiler in ["clang", "cc"] {
            let cc = Process()
            cc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            cc.arguments = [compiler, "-O2", "-shared", "-fPIC", source.path, "-o", library.path]
            cc.standardError = FileHandle.nullDevice
            guard (try? cc.run()) != nil else { continue }
            cc.waitUntilExit()
            if cc.terminationStatus == 0 { return library.path }
        }
        return nil
    }

    /// (mallocs, generated tokens) of one greedy run.
    static func count(_ model: String, prompt: String, tokens: Int, shim: String) throws -> (Int, Int) {
        let r = try runQuanta(["generate", "--model", model, "--prompt", prompt, "-n", "\(tokens)", "--ids", "--threads", "2"],
                              environment: ["LD_PRELOAD": shim])
        #expect(r.status == 0, "\(r.stderr)")
        let mallocs = r.stderr.split(separator: "\n").first { $0.hasPrefix("mallocs: ") }.flatMap { Int($0.dropFirst(9)) }
        let generated = r.stderr.firstRange(of: "generated tokens: ").flatMap { range in
            Int(r.stderr[range.upperBound...].prefix { $0.isNumber })
        }
        return (try #require(mallocs), try #require(generated))
    }

    @Test(arguments: [("SmolLM2-135M-Instruct.Q4_1.gguf", "The best way to learn programming is"), ("gemma-3-270m-q4_k_m.gguf", "In 1492,")])
    func decodeDoesNotAllocatePerToken(_ file: String, _ prompt: String) throws {
        guard let shim = try Self.buildCounter() else {
            Issue.record("no C compiler to build the malloc counter")
            return
        }
        let model = "\(repositoryRoot)/Models/\(file)"
        let (few, fewTokens) = try Self.count(model, prompt: prompt, tokens: 8, shim: shim)
        let (many, manyTokens) = try Self.count(model, prompt: prompt, tokens: 72, shim: shim)
        try #require(manyTokens - fewTokens >= 32, "too few extra tokens to measure (\(fewTokens), \(manyTokens))")
        let perToken = Double(many - few) / Double(manyTokens - fewTokens)
        print("\(file): \(perToken) mallocs per generated token (\(few) for \(fewTokens) tokens, \(many) for \(manyTokens))")
        #expect(perToken <= 3, "\(file): \(perToken) mallocs per generated token")
    }
}
