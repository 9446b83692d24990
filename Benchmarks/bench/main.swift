// `swift run -c release bench [SUITE] [options]`
//
// Suites: (none) = model throughput (llama-bench's pp/tg tests), `kernels` = matmul kernels
// (KernelBench.swift), `tokenizer` = encode MB/s and build time (TokenizerBench.swift),
// `dequant` = reference dequantizer throughput, `serve` = `quanta serve` beside llama-server
// under concurrent streamed chat requests (ServeBench.swift). Each suite declares its options as a
// `CommandSpec` (the grammar `quanta` uses too); `--help` lists them.
#if canImport(Glibc)
import Glibc
#endif
import CommandLineSpec

let suites = ["kernels", "tokenizer", "dequant", "serve"]

var arguments = Array(CommandLine.arguments.dropFirst())
let suite = arguments.first.flatMap { $0.hasPrefix("-") ? nil : $0 }
if suite != nil { arguments.removeFirst() }
switch suite {
case nil: exit(runModelBench(arguments))
case "kernels": exit(runKernelBench(arguments))
case "tokenizer": exit(runTokenizerBench(arguments))
case "dequant": exit(runDequantBench(arguments))
case "serve": exit(runServeBench(arguments))
case Roofline.streamRateSuite: exit(Roofline.printStreamRate(arguments))
default:
    let hint = closestMatch(to: suite!, among: suites).map { "; did you mean '\($0)'?" } ?? ""
    printError("bench: error: unknown suite '\(suite!)'\(hint) (suites: \(suites.joined(separator: ", ")); none = model throughput; see bench --help)\n")
    exit(2)
}

/// Parses `args` for `spec` and runs `body` with them. `-h` prints the usage (exit 0); an
/// argument error, from the parser or from `body` reading a value, is one line pointing to
/// `--help` (exit 2); each ignored llama-bench option gets a note on stderr.
func withArguments(_ spec: CommandSpec, _ args: [String], _ body: (ParsedArguments) throws(UsageError) -> Int32) -> Int32 {
    do throws(UsageError) {
        guard let parsed = try spec.parse(args) else {
            print(spec.usage, terminator: "")
            return 0
        }
        for note in parsed.notes { printError("bench: note: \(note)\n") }
        return try body(parsed)
    } catch {
        printError("bench: error: \(error.line(for: spec))\n")
        return error.isArgumentError ? 2 : 1
    }
}
