// `swift run -c release bench [--model PATH]` (and `bench tokenizer`, see TokenizerBench.swift)
//
// Until the forward pass lands this measures the foundation: GGUF open+parse time and the
// reference dequantizers' throughput on the model's own tensors (median of 5 after a warm-up).
#if canImport(Glibc)
import Glibc
#endif
import Engine
import GGUF

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

func printError(_ text: String) {
    var text = text
    text.withUTF8 { buffer in _ = write(2, buffer.baseAddress, buffer.count) }
}

func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

// `bench tokenizer ...` is its own benchmark (TokenizerBench.swift); anything else is the default.
if CommandLine.arguments.dropFirst().first == "tokenizer" {
    exit(runTokenizerBench(Array(CommandLine.arguments.dropFirst(2))))
}

var modelPath = "Models/SmolLM2-135M-Instruct.Q4_1.gguf"
var args = Array(CommandLine.arguments.dropFirst())
while !args.isEmpty {
    let a = args.removeFirst()
    if a == "--model", !args.isEmpty { modelPath = args.removeFirst() } else {
        printError("usage: bench [--model PATH]\n")
        exit(2)
    }
}

var loadTimes: [Double] = []
var file: GGUFFile?
for _ in 0..<6 {
    let t0 = now()
    do { file = try GGUFFile(path: modelPath) } catch {
        printError("bench: \(modelPath): \(error)\n")
        exit(1)
    }
    loadTimes.append(now() - t0)
}
guard let file else { exit(1) }
print("model: \(modelPath)")
print("gguf parse: \(String(format3(median(Array(loadTimes.dropFirst())) * 1000))) ms (median of 5)")
print("")
print("| type | tensors | MB | dequant_ref GB/s (fp32 out) |")
print("|---|---|---|---|")
let byType = Dictionary(grouping: file.tensors, by: \.type)
for type in byType.keys.sorted(by: { $0.rawValue < $1.rawValue }) where dequantizableTypes.contains(type) {
    let tensors = byType[type]!
    let bytes = tensors.reduce(0) { $0 + $1.byteCount }
    var times: [Double] = []
    for _ in 0..<6 {
        let t0 = now()
        var sink: Float = 0
        for t in tensors { sink += (try! dequantizeRows(t, in: file)).last ?? 0 }
        times.append(now() - t0)
        if sink.isNaN { print("", terminator: "") }
    }
    let elements = tensors.reduce(0) { $0 + $1.elementCount }
    let gbps = Double(elements * 4) / median(Array(times.dropFirst())) / 1e9
    print("| \(type) | \(tensors.count) | \(format3(Double(bytes) / 1e6)) | \(format3(gbps)) |")
}

func format3(_ x: Double) -> String {
    let scaled = (x * 1000).rounded() / 1000
    return "\(scaled)"
}
