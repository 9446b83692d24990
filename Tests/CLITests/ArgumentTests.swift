import Foundation
import GGUF
import Testing

/// The command line as people with llama.cpp habits type it, for `quanta` and `bench` (one
/// grammar, Sources/CommandLineSpec): llama.cpp options that do not apply are accepted with a
/// note, misspellings get "did you mean", and an argument error is one line that points to
/// `--help`.
@Suite struct ArgumentTests {
    let smollm = "\(repositoryRoot)/Models/SmolLM2-135M-Instruct.Q4_1.gguf"

    private func expectArgumentError(_ r: (status: Int32, stdout: String, stderr: String), _ line: String, status: Int32 = 1,
                                     sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == status, "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr == line + "\n", sourceLocation: sourceLocation)
        #expect(r.stdout.isEmpty, sourceLocation: sourceLocation)
    }

    /// `-ngl 99` and friends run, with one note each on stderr; their values are checked as
    /// llama.cpp checks them.
    @Test func harmlessLlamaCppOptionsAreAcceptedWithANote() throws {
        let r = try runQuanta(["generate", "-ngl", "99", "-m", smollm, "-p", "hi", "-n", "2", "-t", "2",
                               "-fa", "on", "-b", "512", "-co", "off", "-no-cnv", "--jinja", "--n-gpu-layers=all"])
        #expect(r.status == 0, "\(r.stderr)")
        let notes = r.stderr.split(separator: "\n").filter { $0.hasPrefix("quanta: note: ") }
        #expect(notes.count == 7, "\(r.stderr)")
        #expect(notes.first == "quanta: note: -ngl 99 ignored: Quanta runs on the CPU; there are no GPU layers")
        #expect(r.stderr.contains("quanta: note: -fa on ignored: "))
        #expect(r.stderr.contains("quanta: note: --jinja ignored: "))
        #expect(r.stderr.contains("prompt tokens: "))
        let chat = try runQuanta(["chat", "-m", smollm, "-ngl", "0", "-fa", "auto", "-co", "auto", "--jinja", "-p", "Hi", "-n", "2", "-t", "2"])
        #expect(chat.status == 0, "\(chat.stderr)")
        #expect(chat.stderr.split(separator: "\n").filter { $0.hasPrefix("quanta: note: ") }.count == 4, "\(chat.stderr)")
        expectArgumentError(try runQuanta(["generate", "-m", smollm, "-p", "hi", "-fa", "maybe"]),
                            "quanta: error: -fa takes on, off or auto, got 'maybe' (see quanta generate --help)")
        expectArgumentError(try runQuanta(["generate", "-m", smollm, "-p", "hi", "-ngl", "many"]),
                            "quanta: error: -ngl takes an integer, auto or all, got 'many' (see quanta generate --help)")
        expectArgumentError(try runQuanta(["generate", "-m", smollm, "-p", "hi", "-ngl"]),
                            "quanta: error: -ngl needs a value (N) (see quanta generate --help)")
    }

    /// `-lm` / `--load-mode` (llama.cpp's model loading mode) takes one of the modes llama.cpp's
    /// common/arg.cpp takes, and changes nothing (`bench` takes a list, as llama-bench does:
    /// `benchArguments`).
    @Test func loadModeIsAcceptedAsLlamaCppTakesIt() throws {
        let r = try runQuanta(["generate", "-lm", "mmap+mlock", "-m", smollm, "-p", "hi", "-n", "2", "-t", "2", "--load-mode=dio"])
        #expect(r.status == 0, "\(r.stderr)")
        let notes = r.stderr.split(separator: "\n").filter { $0.hasPrefix("quanta: note: ") }
        #expect(notes == ["quanta: note: -lm mmap+mlock ignored: Quanta loads one way: the weights are repacked into its own memory and the file is unmapped",
                          "quanta: note: --load-mode dio ignored: Quanta loads one way: the weights are repacked into its own memory and the file is unmapped"],
                "\(r.stderr)")
        expectArgumentError(try runQuanta(["generate", "-m", smollm, "-p", "hi", "-lm", "mmap,mlock"]),
                            "quanta: error: -lm takes auto, none, mmap, mlock, mmap+mlock or dio, got 'mmap,mlock' (see quanta generate --help)")
        expectArgumentError(try runQuanta(["serve", "-m", smollm, "--load-mode", "lazy"]),
                            "quanta: error: --load-mode takes auto, none, mmap, mlock, mmap+mlock or dio, got 'lazy' (see quanta serve --help)")
    }

    @Test func misspellingsGetDidYouMean() throws {
        expectArgumentError(try runQuanta(["generate", "-m", smollm, "-p", "hi", "--tmep", "0.5"]),
                            "quanta: error: unknown option '--tmep'; did you mean '--temp'? (see quanta generate --help)")
        expectArgumentError(try runQuanta(["generate", "-m", smollm, "-p", "hi", "--temperature", "0.5"]),
                            "quanta: error: unknown option '--temperature'; did you mean '--temp'? (see quanta generate --help)")
        expectArgumentError(try runQuanta(["chat", "-m", smollm, "--n-predcit", "4"]),
                            "quanta: error: unknown option '--n-predcit'; did you mean '--n-predict'? (see quanta chat --help)")
        expectArgumentError(try runQuanta(["generat", "-m", smollm]),
                            "quanta: error: unknown command 'generat'; did you mean 'generate'? (see quanta --help)", status: 2)
        expectArgumentError(try runQuanta(["chta"]), "quanta: error: unknown command 'chta'; did you mean 'chat'? (see quanta --help)", status: 2)
        // Nothing near: no guess.
        expectArgumentError(try runQuanta(["inspect", smollm, "--bogus"]), "quanta: error: unknown option '--bogus' (see quanta inspect --help)")
        expectArgumentError(try runQuanta(["frobnicate"]), "quanta: error: unknown command 'frobnicate' (see quanta --help)", status: 2)
        // llama.cpp's `_` for `-` in long options is no misspelling.
        #expect(try runQuanta(["generate", "-m", smollm, "-p", "hi", "-n", "1", "--top_k", "5", "--repeat_penalty", "1.1"]).status == 0)
    }

    /// One line, never the whole usage.
    @Test func argumentErrorsAreOneLine() throws {
        let cases: [([String], String)] = [
            (["generate", "-m", smollm, "-p"], "quanta: error: -p needs a value (TEXT) (see quanta generate --help)"),
            (["generate", "-m", smollm, "-p", "Hello", "world"],
             "quanta: error: unexpected argument 'world'; quote a value that contains spaces (see quanta generate --help)"),
            (["generate", "-m", smollm, "-p", "hi", "-n", "0"], "quanta: error: -n must be -1 or at least 1 (see quanta generate --help)"),
            (["generate", "-m", smollm], "quanta: error: a prompt is required: -p TEXT or -f FILE (see quanta generate --help)"),
            (["perplexity", "-m", smollm], "quanta: error: -f FILE is required (see quanta perplexity --help)"),
            (["inspect"], "quanta: error: missing PATH (see quanta inspect --help)"),
            (["tokenize"], "quanta: error: -m/--model PATH is required (see quanta tokenize --help)"),
            (["chat", "-m", smollm, "-p", "a", "-f", "b"], "quanta: error: give the message once: -p TEXT or -f FILE, not both (see quanta chat --help)"),
            (["template", "--json"], "quanta: error: unknown option '--json' (see quanta template --help)"),
        ]
        for (args, line) in cases { expectArgumentError(try runQuanta(args), line) }
    }

    /// The seed's default is said once in each command's help, in the `-s` line, and is the
    /// default the command uses (`generate`: 0, reproducible; `chat`: random).
    @Test(arguments: [("generate", "default 0; -1 = random"), ("chat", "default -1 = random")])
    func theSeedDefaultIsStatedOnce(_ command: String, _ text: String) throws {
        let help = try runQuanta([command, "--help"])
        #expect(help.status == 0)
        let lines = help.stdout.split(separator: "\n").filter { $0.localizedCaseInsensitiveContains("seed") }
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.contains("-s, --seed N") == true && lines.first?.contains(text) == true, "\(lines)")
    }

    /// `-c 0` is the model's trained context (SmolLM2: 8192), as in llama.cpp.
    @Test func contextZeroIsTheTrainedLength() throws {
        let zero = try runQuanta(["chat", "-m", smollm, "-c", "0"], stdin: "/show info\n")
        #expect(zero.status == 0, "\(zero.stderr)")
        #expect(zero.stderr.contains("context 8192 tokens (trained 8192)"), "\(zero.stderr)")
        let standard = try runQuanta(["chat", "-m", smollm], stdin: "/show info\n")
        #expect(standard.stderr.contains("context 4096 tokens (trained 8192)"), "\(standard.stderr)")
        #expect(try runQuanta(["generate", "-m", smollm, "-c", "0", "-p", "hi", "-n", "1"]).status == 0)
    }

    /// `-f FILE` drops one trailing newline, as llama.cpp does: the file "PROMPT\n" gives the
    /// ids of "PROMPT"; a second newline stays.
    @Test func aPromptFileLosesOneTrailingNewline() throws {
        let files = try ScratchDirectory()
        defer { files.remove() }
        let prompt = "The best way to learn programming is"
        try (prompt + "\n").write(toFile: files.path("one.txt"), atomically: true, encoding: .utf8)
        try (prompt + "\n\n").write(toFile: files.path("two.txt"), atomically: true, encoding: .utf8)
        func promptIDs(_ args: [String]) throws -> [Int] {
            let r = try runQuanta(["generate", "-m", smollm, "-n", "1", "--ids", "-t", "2"] + args)
            #expect(r.status == 0, "\(r.stderr)")
            return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: [Int]])?["prompt_ids"] ?? []
        }
        let typed = try promptIDs(["-p", prompt])
        #expect(typed == [504, 1450, 970, 288, 835, 6256, 314])
        #expect(try promptIDs(["-f", files.path("one.txt")]) == typed)
        #expect(try promptIDs(["-f", files.path("two.txt")]).count == typed.count + 1)
    }

    /// `bench` reads its options with the same grammar: help, one-line errors, "did you mean",
    /// llama-bench's ignored options, for every suite; nothing here loads a model.
    @Test func benchArguments() throws {
        func bench(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            try runQuanta(args, timeout: 60, program: "bench")
        }
        let help = try bench(["--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("usage: bench [options]\n"), "\(help.stdout)")
        #expect(help.stdout.contains("-p, --n-prompt N[,N...]") && help.stdout.contains("--compare-llama-cpp"))
        for suite in ["kernels", "tokenizer", "dequant"] {
            let r = try bench([suite, "-h"])
            #expect(r.status == 0 && r.stdout.hasPrefix("usage: bench \(suite) [options]\n"), "\(r.stdout)")
        }
        expectArgumentError(try bench(["--bogus"]), "bench: error: unknown option '--bogus' (see bench --help)", status: 2)
        expectArgumentError(try bench(["-r"]), "bench: error: -r needs a value (N) (see bench --help)", status: 2)
        expectArgumentError(try bench(["-r", "0"]), "bench: error: -r must be an integer in 1...1000000, got 0 (see bench --help)", status: 2)
        expectArgumentError(try bench(["-p", "128,x"]),
                            "bench: error: -p takes integers in 0...1000000, comma-separated; got 128,x (see bench --help)", status: 2)
        expectArgumentError(try bench(["--repetitons", "3"]),
                            "bench: error: unknown option '--repetitons'; did you mean '--repetitions'? (see bench --help)", status: 2)
        expectArgumentError(try bench(["-ngl", "x"]),
                            "bench: error: -ngl takes a comma-separated list of integers, got 'x' (see bench --help)", status: 2)
        expectArgumentError(try bench(["-lm", "mmap,fast"]),
                            "bench: error: -lm takes a comma-separated list of auto, none, mmap, mlock, mmap+mlock or dio, got 'mmap,fast' (see bench --help)",
                            status: 2)
        expectArgumentError(try bench(["kernels", "--threads"]),
                            "bench: error: --threads needs a value (N[,N...]) (see bench kernels --help)", status: 2)
        expectArgumentError(try bench(["tokenizer", "--mb", "lots"]),
                            "bench: error: --mb must be a number in 0.001...1000.0, got lots (see bench tokenizer --help)", status: 2)
        expectArgumentError(try bench(["dequant", "--mdoel", "x"]),
                            "bench: error: unknown option '--mdoel'; did you mean '--model'? (see bench dequant --help)", status: 2)
        expectArgumentError(try bench(["-np", "2,0"]),
                            "bench: error: -np takes integers in 1...64, comma-separated; got 2,0 (see bench --help)", status: 2)
        expectArgumentError(try bench(["kernals"]), "bench: error: unknown suite 'kernals'; did you mean 'kernels'? "
                            + "(suites: kernels, tokenizer, dequant, serve; none = model throughput; see bench --help)", status: 2)
    }

    /// `bench -np`: each tgN gets a tgN x P row per sequence count P > 1 (batched decode steps of P
    /// sequences, aggregate tok/s), after its tgN row; a count of 1 adds nothing.
    @Test func benchParallelAddsBatchedDecodeRows() throws {
        let r = try runQuanta(["-m", smollm, "-p", "0", "-n", "4", "-np", "1,2,3", "-r", "1", "-t", "1", "--json"],
                              timeout: 120, program: "bench")
        #expect(r.status == 0, "\(r.stderr)")
        let rows = r.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(rows.map { $0["test"] as? String } == ["tg4", "tg4 x 2", "tg4 x 3"], "\(r.stdout)")
        #expect(rows.allSatisfy { ($0["tok_s"] as? Double ?? 0) > 0 }, "\(r.stdout)")
    }

    /// The decode roofline counts the bytes decode streams: the file's tensors natively, and with
    /// `--weights mxfp4` every matrix (2-D tensor; SmolLM2's tied embedding is its head) at MXFP4's
    /// 17 bytes per 32 values instead of the file's Q4_1 blocks.
    @Test func benchRooflineCountsTheConvertedBytes() throws {
        let file = try GGUFFile(path: smollm)
        let native = file.tensors.reduce(0) { $0 + $1.byteCount }
        let mxfp4 = file.tensors.reduce(0) { $0 + ($1.shape.count == 2 ? $1.shape[1] * $1.shape[0] / 32 * 17 : $1.byteCount) }
        #expect(file.tensor(named: "output.weight") == nil && mxfp4 < native)
        for (weights, expected) in [("native", native), ("mxfp4", mxfp4)] {
            let r = try runQuanta(["-m", smollm, "-p", "0", "-n", "2", "-r", "1", "-t", "1", "--weights", weights, "--json"],
                                  timeout: 120, program: "bench")
            #expect(r.status == 0, "\(r.stderr)")
            let row = try JSONSerialization.jsonObject(with: Data(r.stdout.split(separator: "\n").first.map(String.init)?.utf8 ?? "".utf8))
            #expect((row as? [String: Any])?["roofline_weight_bytes"] as? Int == expected, "\(weights): \(r.stdout)")
        }
    }
}
