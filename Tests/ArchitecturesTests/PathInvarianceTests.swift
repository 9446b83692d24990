import Foundation
import Testing
import Architectures
import Engine
import GGUF

/// The whole model gives the same bits on every kernel path: for both real models and every KV
/// format (fp16, MXFP8 E4M3, q8_0; the q8_0 cache in `q8Runs`, a shorter matrix), a 300-token prompt
/// (one prefill batch: the blocked attention) and greedy decode steps at positions 300 and on
/// (split-K over every format) give exactly ref's logits (every vocabulary entry, as bit
/// patterns) and tokens on `avx2`, `avx512-emu` and, where the CPU has them, `avx512` and `amx`,
/// at 1 and 2 threads (`runs`). Each path runs in its own process of this test binary
/// (QUANTA_KERNEL_PATH, read once per process), whose worker test writes the logits to a file.
/// ref's scalar matmuls make it the slow one: in `make test` it runs `refSteps` = 16 steps on 1
/// thread (see `runs` for the others); QUANTA_PATH_MATRIX=full runs ref for all 64 steps too.
/// The two models run side by side (each spawns its runs one after another), so the suite's
/// single-threaded runs keep both cores of a 2-vCPU host busy once the other suites are done.
/// Time cap: ~8 min on a loaded 2-vCPU host without AVX-512 (ref and the emulated build most of it).
@Suite struct PathInvarianceTests {
    static let full = ProcessInfo.processInfo.environment["QUANTA_PATH_MATRIX"] == "full"
    static let steps = 64
    static let refSteps = full ? steps : 16
    static let formats: [KVCacheFormat] = [.f16, .mxfp8_e4m3, .q8_0]

    /// The logits of the prompt's last row and of each decode step (bit patterns), then the tokens.
    static func run(_ key: String, format: KVCacheFormat, threads: Int, steps: Int) throws -> [UInt32] {
        let model = try loadModel(try GGUFFile(path: ReferenceData.modelPath(key)))
        let prompt = Array(try ReferenceData.greedy(key).flatMap { $0.prompt_ids + $0.gen_ids }.prefix(300))
        let state = model.makeState(contextSize: prompt.count + steps, maxBatch: 512, kvFormat: format)
        state.context.threads = threads
        var out: [UInt32] = [], tokens: [UInt32] = []
        var row = try #require(model.forward(prompt, state: state, logitRows: prompt.count - 1..<prompt.count)).copyRow(0)
        for _ in 0..<steps {
            out += row.map(\.bitPattern)
            let next = Int32(argmax(row))
            tokens.append(UInt32(next))
            row = try #require(model.forward([next], state: state, logitRows: 0..<1)).copyRow(0)
        }
        return out + tokens
    }

    /// The worker: runs QUANTA_PATH_RUN ("model format threads steps") on this process's path and
    /// writes the result to QUANTA_PATH_OUT. Enabled only in the processes the test below starts.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["QUANTA_PATH_OUT"] != nil))
    func worker() throws {
        let env = ProcessInfo.processInfo.environment
        let args = try #require(env["QUANTA_PATH_RUN"]).split(separator: " ").map(String.init)
        let format = try #require(KVCacheFormat(rawValue: args[1]))
        let bits = try Self.run(args[0], format: format, threads: Int(args[2])!, steps: Int(args[3])!)
        try bits.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: env["QUANTA_PATH_OUT"]!)) }
    }

    /// Runs the worker in a new process on `path`.
    static func spawn(_ path: String, _ key: String, _ format: KVCacheFormat, threads: Int, steps: Int) throws -> [UInt32] {
        let out = FileManager.default.temporaryDirectory
            .appendingPathComponent("path-invariance-\(getpid())-\(key)-\(format.rawValue)-\(path)-\(threads).bin")
        defer { try? FileManager.default.removeItem(at: out) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        p.arguments = ["--testing-library", "swift-testing", "--filter", "PathInvarianceTests/worker"]
        var env = ProcessInfo.processInfo.environment
        env["QUANTA_KERNEL_PATH"] = path
        env["QUANTA_PATH_OUT"] = out.path
        env["QUANTA_PATH_RUN"] = "\(key) \(format.rawValue) \(threads) \(steps)"
        p.environment = env
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        let data = try Data(contentsOf: out)
        return data.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
    }

    /// The runs compared with ref's: (path, threads, steps). `make test` runs the native SIMD path
    /// the CPU has best (avx512, else avx2) on 1 and 2 threads for all the steps, and avx2 and the
    /// emulated AVX-512 build (SIMDe: slow) on one thread for ref's steps; QUANTA_PATH_MATRIX=full
    /// runs every path at 1 and 2 threads for all the steps (about 25 min on a loaded 2-vCPU host).
    static var runs: [(path: KernelPath, threads: Int, steps: Int)] {
        if full {
            return [KernelPath.avx2, .avx512Emulated, .avx512, .amx].filter(\.isSupported)
                .flatMap { p in [1, 2].map { (p, $0, steps) } }
        }
        let native: KernelPath = KernelPath.avx512.isSupported ? .avx512 : .avx2
        return [(native, 1, steps), (native, 2, steps)] + [KernelPath.avx2, .avx512Emulated].filter { $0 != native }.map { ($0, 1, refSteps) }
    }

    /// The q8_0 cache's runs, kept short for `make test`: the native path on 2 threads and avx2 on
    /// one for ref's steps (its kernels are bitwise ref's on every path in CanonicalAttentionTests,
    /// the emulated build included); QUANTA_PATH_MATRIX=full runs it as the other formats.
    static var q8Runs: [(path: KernelPath, threads: Int, steps: Int)] {
        if full { return runs }
        let native: KernelPath = KernelPath.avx512.isSupported ? .avx512 : .avx2
        return [(native, 2, refSteps)] + (native == .avx2 ? [] : [(KernelPath.avx2, 1, refSteps)])
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["QUANTA_PATH_OUT"] == nil), arguments: ["smollm", "gemma"])
    func everyPathGivesRefsBits(_ key: String) throws {
        for format in Self.formats {
            let ref = try Self.spawn("ref", key, format, threads: 1, steps: Self.refSteps)
            let vocab = ref.count / Self.refSteps - 1
            var longest: [UInt32]?   // the first run of all the steps
            for (path, threads, steps) in format == .q8_0 ? Self.q8Runs : Self.runs {
                let got = try Self.spawn(path.description, key, format, threads: threads, steps: steps)
                #expect(got.count == steps * (vocab + 1), "\(key) \(format) \(path) \(threads): worker output")
                guard got.count == steps * (vocab + 1) else { continue }
                let logits = { (bits: [UInt32], step: Int) in Array(bits[step * vocab..<(step + 1) * vocab]) }
                let againstRef = (0..<Self.refSteps).first { logits(got, $0) != logits(ref, $0) }
                #expect(againstRef == nil, "\(key) \(format) \(path) \(threads) threads: logits differ from ref's at step \(againstRef ?? -1)")
                #expect(got.suffix(steps).prefix(Self.refSteps) == ref.suffix(Self.refSteps), "\(key) \(format) \(path): tokens differ from ref's")
                guard steps == Self.steps else { continue }
                if let longest {
                    let step = (0..<steps).first { logits(got, $0) != logits(longest, $0) }
                    #expect(step == nil, "\(key) \(format) \(path) \(threads) threads: logits differ at step \(step ?? -1)")
                    #expect(got.suffix(steps) == longest.suffix(steps), "\(key) \(format) \(path) \(threads): tokens differ")
                } else { longest = got }
            }
        }
    }
}
