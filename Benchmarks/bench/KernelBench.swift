// `swift run -c release bench kernels [--json] [--threads 1,2] [--m 1,512] [--formats q4_1,...]
//                                     [--paths avx2,...] [--all] [--quick] [--cold]`
//
// Kernel microbenchmarks on the real models' matmul shapes. Every number that a case is compared
// with is measured in the same run: the int8 multiply-accumulate peak (register-only loop with
// the path's instruction: vpdpbusd on AVX-512 VNNI, vpmaddubsw on AVX2), a streaming read of
// the same number of bytes as the weight's original blocks, and OpenBLAS sgemm on the same
// shape with the dequantized fp32 weights. Timings are medians after a warm-up (a decode case and
// its streaming read timed in turns); the time of a matmul includes quantizing its activations.
// `--cold` (decode only): every timed call and every streaming read touches a different copy of
// the weights, the copies covering four times the L3 and at least 256 MiB
// (Roofline.uncachedBytes), so the bytes come from DRAM as in a real decode step (the models are
// larger than the L3) instead of from a cache-resident copy.
#if canImport(Glibc)
import Glibc
#endif
import CKernels
import CommandLineSpec
import Engine
import JSON

struct KernelShape {
    let model: String, name: String, n: Int, k: Int, formats: [WeightFormat]
}

/// Each body's seconds per round (indexed as `bodies`), timed in turns after one warm-up call
/// each, so that figures compared across bodies are calls a few milliseconds apart (a shared
/// host's DRAM rate moves by up to 2x within a run); each round starts one body further on, so
/// none always follows the same one. 5..50 rounds in ~`budget` s.
func timeInTurns(budget: Double = 0.5, _ bodies: [() -> Void]) -> [[Double]] {
    for body in bodies { body() }
    var rounds: [[Double]] = []
    let start = now()
    while rounds.count < 5 || (now() - start < budget && rounds.count < 50) {
        var seconds = [Double](repeating: 0, count: bodies.count)
        for turn in 0..<bodies.count {
            let i = (rounds.count + turn) % bodies.count
            let t0 = now()
            bodies[i]()
            seconds[i] = now() - t0
        }
        rounds.append(seconds)
    }
    return rounds
}

/// Median wall time of `body` after one warm-up, repeated until ~`budget` seconds (3..50 reps).
func timeIt(budget: Double = 0.25, _ body: () -> Void) -> Double {
    body()
    var times: [Double] = []
    let start = now()
    while times.count < 3 || (now() - start < budget && times.count < 50) {
        let t0 = now()
        body()
        times.append(now() - t0)
    }
    return median(times)
}

/// Random well-formed blocks (random quant bytes, fp16 scales in a sane range) of a GGUF format.
func benchBlocks(_ format: WeightFormat, n: Int, k: Int) -> [UInt8] {
    var state: UInt64 = 0x1234_5678
    func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    let count = n * format.rowBytes(k: k)
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { raw in
        let words = raw.bindMemory(to: UInt64.self)
        for i in 0..<words.count { words[i] = next() }
        for i in (words.count * 8)..<count { raw[i] = UInt8(truncatingIfNeeded: next()) }
    }
    func half(_ o: Int, _ v: Float) {
        let h = ck_fp32_to_fp16(v)
        bytes[o] = UInt8(h & 0xFF); bytes[o + 1] = UInt8(h >> 8)
    }
    let bb = format.blockBytes
    for b in 0..<(count / bb) {
        let o = b * bb
        switch format {
        case .q4_0, .q5_0, .q8_0, .iq4_nl: half(o, 0.004)
        case .iq4_xs: half(o, 0.0003)
        case .q4_1: half(o, 0.004); half(o + 2, -0.03)
        case .q5_1: half(o, 0.004); half(o + 2, -0.06)
        case .q4_K, .q5_K: half(o, 0.0003); half(o + 2, 0.0002)
        case .q6_K: half(o + 208, 0.0001)
        case .q3_K: half(o + 108, 0.002)
        default: break
        }
    }
    return bytes
}

/// Whether `format`'s bench weights are quantized from floats (MX and float formats) rather than
/// made of random blocks.
func quantizedFromFloats(_ format: WeightFormat) -> Bool {
    format.isMX || format == .f16 || format == .bf16 || format == .f32
}

func benchWeights(_ format: WeightFormat, n: Int, k: Int) -> WeightMatrix {
    if quantizedFromFloats(format) {
        var values = [Float](repeating: 0, count: n * k)
        var s: UInt32 = 1
        for i in 0..<values.count { s = s &* 1_664_525 &+ 1_013_904_223; values[i] = Float(Int32(bitPattern: s)) * 0x1p-36 }
        return try! WeightMatrix(quantizing: values, n: n, k: k, as: format)
    }
    let blocks = benchBlocks(format, n: n, k: k)
    return try! blocks.withUnsafeBytes { try WeightMatrix(blocks: $0, n: n, k: k, format: format) }
}

private let jsonOption = OptionSpec(["--json"], "one JSON object per row instead of the table")
private let allOption = OptionSpec(["--all"], "every format whose block fits each shape, not only the model's own")
private let quickOption = OptionSpec(["--quick"], "only the smaller shapes")
private let coldOption = OptionSpec(["--cold"], "decode (m = 1) reads rotating copies of the weights (4x the L3, at least 256 MiB), so they come from DRAM")
private let threadsOption = OptionSpec(["--threads"], value: "N[,N...]", "thread counts (default 1,2)")
private let rowsOption = OptionSpec(["--m"], value: "M[,M...]", "activation rows: 1 = a decode step, 512 = a prefill batch (default 1,512)")
private let formatsOption = OptionSpec(["--formats"], value: "F[,F...]", "only these weight formats (q4_0, q4_1, q5_0, q8_0, q4_K, q5_K, q6_K, f16, mx...)")
private let prefetchOption = OptionSpec(["--prefetch"], value: "BYTES[,BYTES...]",
                                        "decode (m = 1) prefetch distances, timed in turns in one process, a row each (default: the one chosen for this CPU)")
private let pathsOption = OptionSpec(["--paths"], value: "P[,P...]",
                                     "kernel paths: \(KernelPath.allCases.map(\.description).joined(separator: ", ")) (default: the best this CPU has)")

let kernelBenchSpec = CommandSpec(
    program: "bench", name: "kernels",
    summary: "Matmul kernels on the models' shapes, against the int8 MAC peak, a streaming read and OpenBLAS sgemm.",
    options: [jsonOption, threadsOption, rowsOption, formatsOption, pathsOption, allOption, quickOption, coldOption, prefetchOption],
    notes: """
    Every number a case is compared with is measured in the same run. Timings are medians after a warm-up; a matmul's
    time includes quantizing its activations. A path this CPU lacks is skipped with a note.
    """)

/// The `kernels` suite; returns the process exit code.
func runKernelBench(_ arguments: [String]) -> Int32 {
    withArguments(kernelBenchSpec, arguments) { (args) throws(UsageError) -> Int32 in
        var paths = [KernelPath.best]
        if let text = args.string(pathsOption) {
            paths = []
            for name in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let path = KernelPath.allCases.first(where: { $0.description == name }) else {
                    throw UsageError("--paths: unknown path '\(name)' (\(KernelPath.allCases.map(\.description).joined(separator: ", ")))")
                }
                paths.append(path)
            }
            // A path this CPU lacks would run lowered under its name: skipped, with a note.
            for p in paths where !p.isSupported { printError("bench kernels: \(p) is not supported on this CPU; skipped\n") }
            paths = paths.filter(\.isSupported)
        }
        return runKernelBench(json: args.has(jsonOption), all: args.has(allOption), quick: args.has(quickOption), cold: args.has(coldOption),
                              threadCounts: try args.ints(threadsOption, default: [1, 2], range: 1...4096),
                              ms: try args.ints(rowsOption, default: [1, 512], range: 1...65536),
                              formatFilter: args.string(formatsOption).map { Set($0.split(separator: ",").map(String.init)) }, paths: paths,
                              prefetch: args.string(prefetchOption) == nil ? nil : try args.ints(prefetchOption, default: [], range: 0...65536))
    }
}

private func runKernelBench(json: Bool, all: Bool, quick: Bool, cold: Bool, threadCounts: [Int], ms: [Int],
                            formatFilter: Set<String>?, paths: [KernelPath], prefetch: [Int]?) -> Int32 {
    let chosenDistance = ck_decode_prefetch_bytes(-1)
    defer { _ = ck_decode_prefetch_bytes(chosenDistance) }
    if prefetch != nil && !ms.contains(1) {
        printError("bench kernels: --prefetch times decode only; add 1 to --m for its rows\n")
    }
    let mx: [WeightFormat] = [.mxint8, .mxfp4, .mxfp8_e4m3]
    var shapes = [
        KernelShape(model: "smollm2", name: "attn_q/o", n: 576, k: 576, formats: [.q4_1]),
        KernelShape(model: "smollm2", name: "attn_k/v", n: 192, k: 576, formats: [.q4_1]),
        KernelShape(model: "smollm2", name: "ffn_gate/up", n: 1536, k: 576, formats: [.q4_1] + mx),
        KernelShape(model: "smollm2", name: "ffn_down", n: 576, k: 1536, formats: [.q4_1]),
        KernelShape(model: "smollm2", name: "output(tied)", n: 49152, k: 576, formats: [.q8_0]),
        KernelShape(model: "gemma3", name: "attn_q", n: 1024, k: 640, formats: [.q5_0]),
        KernelShape(model: "gemma3", name: "attn_k/v", n: 256, k: 640, formats: [.q5_0, .q8_0]),
        KernelShape(model: "gemma3", name: "attn_output", n: 640, k: 1024, formats: [.q4_K]),
        KernelShape(model: "gemma3", name: "ffn_gate/up", n: 2048, k: 640, formats: [.q5_0]),
        KernelShape(model: "gemma3", name: "ffn_down", n: 640, k: 2048, formats: [.q6_K, .q4_K]),
        KernelShape(model: "gemma3", name: "output(tied)", n: 262144, k: 640, formats: [.q8_0]),
        // A 1.5B model's FFN (Qwen 2.5 1.5B): 14-27 MB a matrix, streamed from DRAM at any --cold.
        KernelShape(model: "qwen2.5-1.5b", name: "ffn_gate/up", n: 8960, k: 1536, formats: [.q4_K, .q5_K, .q6_K]),
        KernelShape(model: "qwen2.5-1.5b", name: "ffn_down", n: 1536, k: 8960, formats: [.q4_K, .q6_K]),
    ]
    let everything: [WeightFormat] = [.q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .iq4_nl, .iq4_xs, .q3_K, .q4_K, .q5_K, .q6_K, .f16, .bf16, .mxint8, .mxfp4, .mxfp8_e4m3, .mxfp8_e5m2]
    if all {
        shapes = shapes.map { s in KernelShape(model: s.model, name: s.name, n: s.n, k: s.k, formats: everything.filter { s.k % $0.blockSize == 0 }) }
    }
    if quick { shapes = shapes.filter { $0.n * $0.k <= 2048 * 640 } }

    // Machine peaks, measured now.
    var int8Peak: [Int: Double] = [:]   // Gop/s (2 ops per MAC) for the best path, per thread count
    for t in threadCounts {
        let iters: Int64 = 20_000_000
        var macs = 0.0
        let secs = timeIt(budget: 0.3) { macs = ck_bench_int8_peak(Int32(KernelPath.best.rawValue), Int32(t), iters) }
        int8Peak[t] = 2 * macs / secs / 1e9
    }
    if !json {
        print("int8 MAC peak (\(KernelPath.best), register-only): " + threadCounts.map { "\($0) thr \(fixed(int8Peak[$0]!, 1)) Gop/s" }.joined(separator: ", ")
              + "; decode prefetch distance \(chosenDistance) bytes (this CPU's)")
        print("")
        print("| model | tensor | m | n | k | format | path | thr | ms | Gop/s | % int8 peak | vs sgemm | weight GB/s | vs stream read |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    }

    for shape in shapes {
        let formats = shape.formats.filter { formatFilter?.contains($0.rawValue) ?? true }
        if formats.isEmpty { continue }
        // fp32 weights for the sgemm baseline (values do not affect sgemm's speed).
        let wf32 = [Float](repeating: 0.01, count: shape.n * shape.k)
        let maxM = ms.max()!
        var x = [Float](repeating: 0, count: maxM * shape.k)
        for i in 0..<x.count { x[i] = Float((i * 7919) % 2001) / 1000 - 1 }
        var y = [Float](repeating: 0, count: maxM * shape.n)
        let context = ExecutionContext(maxRows: maxM, maxK: shape.k)
        var sgemmSecs: [String: Double] = [:]
        for format in formats {
            let w = benchWeights(format, n: shape.n, k: shape.k)
            let weightBytes = w.byteCount
            // The copies (repacked and original blocks) cover what the roofline's read covers.
            let copies = cold ? max(1, Roofline.uncachedBytes / max(1, w.repackedByteCount + weightBytes)) : 1
            var ws = [w]
            if copies > 1 {
                let blocks = quantizedFromFloats(format) ? nil : benchBlocks(format, n: shape.n, k: shape.k)
                for _ in 1..<copies {
                    if let blocks { ws.append(try! blocks.withUnsafeBytes { try WeightMatrix(blocks: $0, n: shape.n, k: shape.k, format: format) }) }
                    else { ws.append(benchWeights(format, n: shape.n, k: shape.k)) }
                }
            }
            // The read compared with decode streams memory of the kind the weights live in
            // (huge pages where Linux offers them), so the ratio measures the kernel, not the pages.
            let streamBufs = (0..<copies).map { _ -> HugePageBuffer in
                let b = HugePageBuffer(byteCount: weightBytes)
                b.pointer.initializeMemory(as: UInt8.self, repeating: 1, count: weightBytes)
                return b
            }
            var turn = 0
            for m in ms {
                for t in threadCounts {
                    let sKey = "\(m)x\(t)"
                    if sgemmSecs[sKey] == nil {
                        sgemmSecs[sKey] = x.withUnsafeBufferPointer { xp in
                            wf32.withUnsafeBufferPointer { wp in
                                y.withUnsafeMutableBufferPointer { yp in
                                    timeIt { ck_sgemm_f32(Int64(m), Int64(shape.n), Int64(shape.k), xp.baseAddress!, wp.baseAddress!, yp.baseAddress!, Int32(t)) }
                                }
                            }
                        }
                    }
                    for path in paths {
                        if path == .ref && (m > 1 || shape.n * shape.k > 2048 * 640) { continue }   // the reference is the spec, not a contender
                        context.threads = t
                        context.path = path
                        let run = {
                            x.withUnsafeBufferPointer { xp in
                                y.withUnsafeMutableBufferPointer { yp in
                                    turn += 1
                                    matmul(ws[m == 1 ? turn % copies : 0], x: xp.baseAddress!, m: m, y: yp.baseAddress!, context: context)
                                }
                            }
                        }
                        // Decode is timed in turns with the read it is compared with (and with
                        // the other prefetch distances): a row per distance.
                        var timings: [(label: String, distance: Int?, secs: Double, vsStream: Double)] = []
                        if m == 1 {
                            // As set: whole lines within 0...65536.
                            let distances = (prefetch ?? [Int(chosenDistance)]).map { Int(ck_decode_prefetch_bytes(Int64($0))) }
                            let kernels = distances.map { distance in { _ = ck_decode_prefetch_bytes(Int64(distance)); run() } }
                            let rounds = timeInTurns(kernels + [{ _ = ck_bench_stream_read(streamBufs[turn % copies].pointer, weightBytes, Int32(t)) }])
                            for (i, distance) in distances.enumerated() {
                                timings.append((prefetch == nil ? "\(path)" : "\(path) pf \(distance)", distance, median(rounds.map { $0[i] }),
                                                median(rounds.map { $0[distances.count] / $0[i] })))
                            }
                            _ = ck_decode_prefetch_bytes(chosenDistance)
                        } else {
                            timings = [("\(path)", nil, timeIt(run), 0)]
                        }
                        for (label, distance, secs, vsStream) in timings {
                            let ops = 2.0 * Double(m) * Double(shape.n) * Double(shape.k)
                            let gops = ops / secs / 1e9
                            let pct = 100 * gops / int8Peak[t]!
                            let vsSgemm = sgemmSecs[sKey]! / secs
                            let gbps = Double(weightBytes) / secs / 1e9
                            if json {
                                var row: [(key: String, value: JSONValue)] = [
                                    ("model", .string(shape.model)), ("tensor", .string(shape.name)), ("m", .integer(m)), ("n", .integer(shape.n)),
                                    ("k", .integer(shape.k)), ("format", .string("\(format)")), ("path", .string("\(path)")), ("threads", .integer(t)),
                                    ("cold", .bool(cold && m == 1)), ("ms", jsonNumber(secs * 1000, 4)), ("gops", jsonNumber(gops, 2)),
                                    ("pct_vnni_peak", jsonNumber(pct, 1)), ("int8_peak_gops", jsonNumber(int8Peak[t]!, 1)),
                                    ("vs_sgemm", jsonNumber(vsSgemm, 2)), ("sgemm_gops", jsonNumber(ops / sgemmSecs[sKey]! / 1e9, 2)),
                                ]
                                if m == 1 {
                                    row += [("weight_gbps", jsonNumber(gbps, 2)), ("vs_stream_read", jsonNumber(vsStream, 2)),
                                            ("stream_gbps", jsonNumber(gbps / vsStream, 2)), ("prefetch_bytes", .integer(distance ?? 0))]
                                }
                                print(JSONValue.object(row).jsonText)
                            } else {
                                let g = m == 1 ? fixed(gbps, 1) : "", s = m == 1 ? fixed(vsStream, 2) : ""
                                print("| \(shape.model) | \(shape.name) | \(m) | \(shape.n) | \(shape.k) | \(format) | \(label) | \(t) | \(fixed(secs * 1000, 3)) | \(fixed(gops, 1)) | \(fixed(pct, 1)) | \(fixed(vsSgemm, 2)) | \(g) | \(s) |")
                            }
                        }
                    }
                }
            }
        }
    }
    return 0
}

