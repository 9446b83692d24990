import Foundation
import Testing

/// Each input that used to crash or hang the CLI now gets exit 1 (130 for Ctrl-C) and one line
/// on stderr. Needs the release `quanta` and the SmolLM2 model (`make test` provides both).
@Suite(.serialized) struct HostileInputTests {
    private func expectOneLineError(_ r: (status: Int32, stdout: String, stderr: String), _ fragment: String,
                                    status: Int32 = 1, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == status, "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.contains(fragment), "\(r.stderr)", sourceLocation: sourceLocation)
    }

    @Test func deeplyNestedChatTemplatesAreAnErrorNotACrash() throws {
        let files = try CraftedModels()
        defer { files.remove() }
        for (name, template) in [("parens", CraftedModels.deepParentheses(100_000)), ("ifs", CraftedModels.deepIfs(10_000))] {
            let model = try files.tinyModel("\(name).gguf", chatTemplate: template)
            expectOneLineError(try runQuanta(["chat", "-m", model], stdin: "hi\n"), "template nested deeper than")
            expectOneLineError(try runQuanta(["template", "--model", model], stdin: #"[{"role": "user", "content": "hi"}]"#),
                               "template nested deeper than")
            let file = files.path("\(name).jinja")
            try template.write(toFile: file, atomically: true, encoding: .utf8)
            expectOneLineError(try runQuanta(["template", "--template", file], stdin: "[]"), "template nested deeper than")
        }
    }

    @Test func aNamedPipeIsRejectedWithoutBlocking() throws {
        let files = try CraftedModels()
        defer { files.remove() }
        let fifo = try files.fifo("pipe.gguf")
        expectOneLineError(try runQuanta(["generate", "-m", fifo, "-p", "hi"], timeout: 20), "not a regular file (a named pipe)")
        expectOneLineError(try runQuanta(["inspect", fifo], timeout: 20), "not a regular file (a named pipe)")
    }

    @Test(arguments: [100, 1_000_000, 2_000_000])
    func aTruncatedFileSaysItEndsEarly(_ length: Int) throws {
        let files = try CraftedModels()
        defer { files.remove() }
        let cut = try files.truncatedSmolLM(length)
        let r = try runQuanta(["generate", "-m", cut, "-p", "hi"])
        expectOneLineError(r, "file ends early")
        #expect(r.stderr.contains("(\(length) bytes)") || r.stderr.contains("the file has \(length) bytes"), "\(r.stderr)")
    }

    /// The KV cache commits memory as the context fills: a 10M-token context on a model trained
    /// that long runs; one larger than the address space is a one-line error with the byte count.
    @Test func hugeContextsGrowOrFailWithTheirSize() throws {
        let files = try CraftedModels()
        defer { files.remove() }
        let model = try files.tinyModel("long.gguf", contextLength: 1 << 50)
        let fits = try runQuanta(["generate", "-m", model, "-c", "10000000", "-p", "Hello", "-n", "4"])
        #expect(fits.status == 0, "\(fits.stderr)")
        // 8 layers × 2 × 256 fp16 values = 8192 bytes per position.
        let huge = try runQuanta(["generate", "-m", model, "-c", "100000000000000", "-p", "Hello", "-n", "4"])
        expectOneLineError(huge, "needs 819200000000000000 bytes of KV cache")
    }

    @Test func ctrlCDuringPrefillStopsPromptly() throws {
        // ~6,300 tokens: several seconds of prefill on one thread, so Ctrl-C at 4 s lands in it even
        // on a fast CPU, and after the model load (under 1 s alone; CI runs suites side by side,
        // and at 2 s a loaded machine once sent it before the handler was in place).
        let prompt = Array(repeating: "the quick brown fox jumps over the lazy dog", count: 700).joined(separator: " ")
        let start = Date()
        let r = try runQuanta(["generate", "-m", CraftedModels.smollm, "-p", prompt, "-n", "1", "-t", "1", "-c", "8192"], interruptAfter: 4)
        expectOneLineError(r, "interrupted during prefill", status: 130)
        #expect(Date().timeIntervalSince(start) < 30)
        // In chat, Ctrl-C ends the reply (prefill included, through the library's cancellation) and
        // the chat goes on; here stdin then ends, so the chat ends normally.
        let chatStart = Date()
        let chat = try runQuanta(["chat", "-m", CraftedModels.smollm, "-t", "1", "-c", "8192"], stdin: prompt + "\n", interruptAfter: 4)
        #expect(chat.status == 0, "\(chat.stderr)")
        #expect(chat.stderr.contains("reply interrupted"), "\(chat.stderr)")
        #expect(Date().timeIntervalSince(chatStart) < 30)
    }

    /// The model shrinks under the running process: the next read of a mapped page past the new
    /// end raises SIGBUS, reported in one line.
    @Test func aModelTruncatedWhileMappedIsOneLine() throws {
        let files = try CraftedModels()
        defer { files.remove() }
        // A byte copy: Models/ holds symlinks to a shared file, which must never be truncated.
        let copy = files.path("shrinking.gguf")
        try Data(contentsOf: URL(fileURLWithPath: CraftedModels.smollm)).write(to: URL(fileURLWithPath: copy))
        let attributes = try FileManager.default.attributesOfItem(atPath: copy)
        try #require(attributes[.type] as? FileAttributeType == .typeRegular)
        DispatchQueue.global().asyncAfter(deadline: .now() + 3) { _ = truncate(copy, 1_000_000) }
        let r = try runQuanta(["generate", "-m", copy, "-p", "Once upon a time", "-n", "100000", "-c", "8192", "-t", "1"])
        expectOneLineError(r, "the model file ended early while in use")
    }

    @Test func errorsAreTrueAndShort() throws {
        let files = try CraftedModels()
        defer { files.remove() }
        let missing = files.path("missing.gguf")
        let r = try runQuanta(["generate", "-m", missing, "-p", "hi"])
        expectOneLineError(r, "cannot open \(missing): No such file")
        #expect(r.stderr.components(separatedBy: missing).count == 2)   // the path once
        expectOneLineError(try runQuanta(["chat", "-m", missing], stdin: ""), "No such file")
        expectOneLineError(try runQuanta(["perplexity", "-m", CraftedModels.smollm, "-f", files.directory.path]), "is a directory")
        expectOneLineError(try runQuanta(["template", "--template", files.directory.path], stdin: "[]"), "is a directory")
        let stray = try runQuanta(["generate", "-m", CraftedModels.smollm, "-p", "Hello", "world"])
        expectOneLineError(stray, "quanta: error: unexpected argument 'world'")
        let unknown = try runQuanta(["inspect", CraftedModels.smollm, "--bogus"])
        expectOneLineError(unknown, "quanta: error: unknown option '--bogus' (see quanta inspect --help)")
        let help = try runQuanta(["inspect", "-h"])
        #expect(help.status == 0 && help.stdout.hasPrefix("usage: quanta inspect"))
    }
}
