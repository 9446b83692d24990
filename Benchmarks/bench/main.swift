// `swift run -c release bench [SUITE] [options]`
//
// Suites: (none) = model throughput (llama-bench's pp/tg tests), `kernels` = matmul kernels
// (KernelBench.swift), `tokenizer` = encode MB/s and build time (TokenizerBench.swift),
// `dequant` = reference dequantizer throughput. Each suite parses its own options; `--help` lists them.
#if canImport(Glibc)
import Glibc
#endif

var arguments = Array(CommandLine.arguments.dropFirst())
let suite = arguments.first.flatMap { $0.hasPrefix("-") ? nil : $0 }
if suite != nil { arguments.removeFirst() }
switch suite {
case nil: exit(runModelBench(arguments))
case "kernels": exit(runKernelBench(arguments))
case "tokenizer": exit(runTokenizerBench(arguments))
case "dequant": exit(runDequantBench(arguments))
case Roofline.streamRateSuite: exit(Roofline.printStreamRate(arguments))
default:
    printError("bench: unknown suite \(suite!) (suites: kernels, tokenizer, dequant; none = model throughput)\n")
    exit(2)
}
