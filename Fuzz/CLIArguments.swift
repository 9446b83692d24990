// libFuzzer target: the one argument grammar of `quanta` and `bench`
// (Sources/CommandLineSpec) with the options of `quanta generate` (Sources/quanta/CommonOptions.swift),
// including the llama.cpp options it ignores, and a positional like `inspect`'s. The input is
// argv, NUL-separated. Every outcome must be parsed values, help, or a UsageError; numbers must
// come back inside their ranges, positionals exactly as declared, and every error must be one line.
import CommandLineSpec

private let generate = CommandSpec(name: "generate", summary: "fuzz",
                                   options: [CommonOptions.prompt, CommonOptions.promptFile, CommonOptions.predict(default: 64)]
                                       + CommonOptions.modelRunning(contextSize: 4096) + CommonOptions.sampling(temperature: 0, seed: 0)
                                       + [OptionSpec(["--ids"], "ids")] + IgnoredOptions.modelRunning
                                       + [IgnoredOptions.color, IgnoredOptions.noConversation, IgnoredOptions.jinja])
private let inspect = CommandSpec(name: "inspect", summary: "fuzz", options: [OptionSpec(["--json"], "json")], positionals: ["PATH"])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArguments(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let argv = UnsafeBufferPointer(start: data, count: size).split(separator: 0, omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
    do {
        if let args = try generate.parse(argv) {
            _ = args.string(CommonOptions.prompt)
            if let n = try? args.int(CommonOptions.predict(default: 64), default: 64, range: -1...1_000_000), !(-1...1_000_000).contains(n) {
                fatalError("-n \(n) outside its range")
            }
            if let t = try? args.double(CommonOptions.temperature(default: 0), default: 0, range: 0...100), !(0...100).contains(t) {
                fatalError("--temp \(t) outside its range")
            }
            if !args.positional.isEmpty { fatalError("positional arguments accepted: \(args.positional)") }
            if args.notes.count > argv.count { fatalError("more notes than arguments") }
            _ = generate.usage
        }
    } catch {
        // An argument error names the argument it is about, and argv can hold newlines; the
        // parser's own words are one line.
        if !argv.contains(where: { $0.contains("\n") }) && error.line(for: generate).contains("\n") {
            fatalError("a multi-line error: \(error.message)")
        }
    }
    if let args = try? inspect.parse(argv), args.positional.count != 1 {
        fatalError("\(args.positional.count) paths accepted")
    }
    _ = closestMatch(to: argv.first ?? "", among: argv)
    return 0
}
