import Foundation
import Testing

@Suite struct ChatCommandTests {
    let smollm = "\(repositoryRoot)/Models/SmolLM2-135M-Instruct.Q4_1.gguf"

    /// Three piped turns: three replies on stdout, three usage lines on stderr, and from the
    /// second turn on, the cache holds the previous turn's whole input (the rows a prefill wrote;
    /// its reply's decoded rows are prefilled again with the next turn, docs/kernels.md).
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
            // This turn's cache covers the previous turn's whole input.
            #expect(numbers[i][1] == numbers[i - 1][0])
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

    /// `-p` (or `-f`) answers once and exits: one reply, one usage line, stdin never read.
    @Test func oneShotAnswersOnceAndExits() throws {
        let r = try runQuanta(["chat", "-m", smollm, "-p", "What is the capital of France?", "-n", "12", "--temp", "0", "-t", "2"],
                              stdin: "And of Spain?\nAnd of Italy?\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Paris"), "\(r.stdout)")
        #expect(r.stderr.components(separatedBy: "[usage] ").count == 2, "\(r.stderr)")
        let files = try ScratchDirectory()
        defer { files.remove() }
        try "What is the capital of France?\n".write(toFile: files.path("q.txt"), atomically: true, encoding: .utf8)
        let fromFile = try runQuanta(["chat", "-m", smollm, "-f", files.path("q.txt"), "-n", "12", "--temp", "0", "-t", "2"], stdin: "")
        #expect(fromFile.status == 0 && fromFile.stdout == r.stdout, "\(fromFile.stdout) vs \(r.stdout)")
    }

    /// `/set system TEXT` changes the instructions the conversation goes on under; `/show` shows
    /// the model, the instructions and the settings, `/show PART` one of them.
    @Test func setSystemAndShow() throws {
        let files = try ScratchDirectory()
        defer { files.remove() }
        let r = try runQuanta(["chat", "-m", smollm, "-sys", "Be brief.", "-c", "512", "-t", "2"],
                              stdin: "/show\n/set system Always   answer in French.\n/show system\n/save \(files.path("s.json"))\n/show sytem\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("model: \(smollm) · context 512 tokens (trained 8192) · 2 threads · weights native · KV cache f16\n"),
                "\(r.stderr)")
        #expect(r.stderr.contains("system: \"Be brief.\"\nparameters: temperature 0.8, top_k 40"), "\(r.stderr)")
        #expect(r.stderr.contains("[system instructions set; the conversation goes on under them]\nsystem: \"Always   answer in French.\"\n"))
        #expect(r.stderr.contains("quanta: error: /show sytem: unknown; did you mean 'system'?"), "\(r.stderr)")
        let entries = try files.entries("s.json")
        #expect(entries.first?.type == "instructions" && entries.first?.text == "Always   answer in French.", "\(entries)")
    }

    /// `/save` and `/load` failures are one clear line each; `/load` reads the message arrays
    /// `quanta template` reads as well as what `/save` wrote.
    @Test func saveAndLoadFailClearlyAndLoadMessages() throws {
        let files = try ScratchDirectory()
        defer { files.remove() }
        let messages = #"[{"role": "system", "content": "You are terse."}, {"role": "user", "content": "What is the capital of France?"}, "#
            + #"{"role": "assistant", "content": "Paris."}]"#
        try messages.write(toFile: files.path("messages.json"), atomically: true, encoding: .utf8)
        try #"{"messages": [{"role": "user", "content": "Hi"}, {"role": "tool", "content": "42"}]}"#
            .write(toFile: files.path("tool.json"), atomically: true, encoding: .utf8)
        try #"[{"type": "prompt"}]"#.write(toFile: files.path("broken.json"), atomically: true, encoding: .utf8)
        try "not json".write(toFile: files.path("text.txt"), atomically: true, encoding: .utf8)
        let input = [
            "/save /nonexistent-directory/chat.json", "/save \(files.url.path)", "/load \(files.path("missing.json"))",
            "/load \(files.path("text.txt"))", "/load \(files.path("broken.json"))", "/load \(files.path("tool.json"))",
            "/load \(files.path("messages.json"))", "/show system", "/save \(files.path("saved.json"))", "/load \(files.path("saved.json"))",
        ].joined(separator: "\n") + "\n"
        let r = try runQuanta(["chat", "-m", smollm, "-c", "512", "-t", "2"], stdin: input)
        #expect(r.status == 0, "\(r.stderr)")
        let errors = r.stderr.split(separator: "\n").filter { $0.hasPrefix("quanta: error: ") }.map { $0.dropFirst("quanta: error: ".count) }
        #expect(errors == [
            "cannot save /nonexistent-directory/chat.json: No such file or directory",
            "cannot save \(files.url.path): Is a directory",
            "cannot read \(files.path("missing.json")): No such file or directory",
            "cannot load \(files.path("text.txt")): it is not JSON",
            "cannot load \(files.path("broken.json")): not a transcript /save wrote (missing [0].id)",
            #"cannot load \#(files.path("tool.json")): message 2 has role "tool"; /load takes a first "system" message, then "user" and "assistant" ones"#,
        ], "\(r.stderr)")
        #expect(!r.stderr.contains("NSCocoaErrorDomain") && !r.stderr.contains("DecodingError"))
        #expect(r.stderr.contains("[loaded 1 turn from \(files.path("messages.json"))"))
        #expect(r.stderr.contains("system: \"You are terse.\""))
        #expect(r.stderr.contains("[loaded 1 turn from \(files.path("saved.json"))"))
        let entries = try files.entries("saved.json")
        #expect(entries.map(\.type) == ["instructions", "prompt", "response"])
        #expect(entries.map(\.text) == ["You are terse.", "What is the capital of France?", "Paris."])
        // The messages /load read are what `quanta template` renders.
        try "{% for m in messages %}[{{ m.role }}|{{ m.content }}]{% endfor %}".write(toFile: files.path("t.jinja"), atomically: true, encoding: .utf8)
        let rendered = try runQuanta(["template", "--template", files.path("t.jinja")], stdin: messages)
        #expect(rendered.status == 0, "\(rendered.stderr)")
        #expect(rendered.stdout == "[system|You are terse.][user|What is the capital of France?][assistant|Paris.]", "\(rendered.stdout)")
    }
}
