import Engine
import GGUF

/// `bench dequant [--model PATH]`: GGUF parse time and the reference dequantizers' throughput
/// on the model's own tensors (median of 5 after a warm-up).
func runDequantBench(_ args: [String]) -> Int32 {
    var modelPath = defaultModelPath
    var args = args
    while !args.isEmpty {
        let a = args.removeFirst()
        guard a == "--model", !args.isEmpty else { printError("usage: bench dequant [--model PATH]\n"); return 2 }
        modelPath = args.removeFirst()
    }
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
