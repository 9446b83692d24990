import CommandLineSpec
import Engine
import GGUF

private let modelOption = OptionSpec(["-m", "--model"], value: "PATH", "the GGUF model (default \(defaultModelPath))")

let dequantBenchSpec = CommandSpec(
    program: "bench", name: "dequant",
    summary: "GGUF parse time and the reference dequantizers' throughput on a model's own tensors (median of 5 after a warm-up).",
    options: [modelOption])

/// `bench dequant [--model PATH]`: GGUF parse time and the reference dequantizers' throughput
/// on the model's own tensors (median of 5 after a warm-up).
func runDequantBench(_ args: [String]) -> Int32 {
    withArguments(dequantBenchSpec, args) { args in runDequantBench(modelPath: args.string(modelOption) ?? defaultModelPath) }
}

private func runDequantBench(modelPath: String) -> Int32 {
    var loadTimes: [Double] = []
    var file: GGUFFile?
    for _ in 0..<6 {
        let t0 = now()
        do { file = try GGUFFile(path: modelPath) } catch { printError("bench: \(modelPath): \(error)\n"); return 1 }
        loadTimes.append(now() - t0)
    }
    guard let file else { return 1 }
    print("model: \(modelPath)")
    print("gguf parse: \(fixed(median(Array(loadTimes.dropFirst())) * 1000, 3)) ms (median of 5)\n")
    print("| type | tensors | MB | dequant_ref GB/s (fp32 out) |")
    print("|---|---|---|---|")
    let byType = Dictionary(grouping: file.tensors, by: \.type)
    for type in byType.keys.sorted(by: { $0.rawValue < $1.rawValue }) where dequantizableTypes.contains(type) {
        let tensors = byType[type]!
        var times: [Double] = []
        for _ in 0..<6 {
            let t0 = now()
            for t in tensors { _ = try? dequantizeRows(t, in: file) }
            times.append(now() - t0)
        }
        let bytes = tensors.reduce(0) { $0 + $1.byteCount }, elements = tensors.reduce(0) { $0 + $1.elementCount }
        let gbps = Double(elements * 4) / median(Array(times.dropFirst())) / 1e9
        print("| \(type) | \(tensors.count) | \(fixed(Double(bytes) / 1e6, 3)) | \(fixed(gbps, 3)) |")
    }
    return 0
}
