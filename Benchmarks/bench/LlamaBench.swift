import Engine
import Foundation
import JSON

/// Runs an external llama.cpp `llama-bench` for side-by-side numbers. The repository never
/// contains llama.cpp; this only looks for a binary the user built.
struct LlamaBench {
    let executable: String

    struct Result {
        let mean: Double, stddev: Double
        /// The llama-bench process's peak resident set (VmHWM), MiB, when it could be read.
        let peakRSSMiB: Double?
    }

    /// `$LLAMA_BENCH`, else `llama-bench` on PATH.
    static func locate() -> LlamaBench? {
        let env = ProcessInfo.processInfo.environment
        if let path = env["LLAMA_BENCH"], FileManager.default.isExecutableFile(atPath: path) { return LlamaBench(executable: path) }
        for dir in (env["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(dir)/llama-bench"
            if FileManager.default.isExecutableFile(atPath: candidate) { return LlamaBench(executable: candidate) }
        }
        return nil
    }

    /// One llama-bench test (`ppN` or `tgN`) with its JSONL output parsed; flash attention on, the
    /// K/V cache q8_0 when `kv` is (else its default f16).
    func run(model: String, test: String, threads: Int, repetitions: Int, depth: Int, kv: KVCacheFormat) -> Result? {
        let count = String(test.dropFirst(2))
        let isPrompt = test.hasPrefix("pp")
        var args = ["-m", model, "-t", "\(threads)", "-r", "\(repetitions)", "-o", "jsonl",
                    "-p", isPrompt ? count : "0", "-n", isPrompt ? "0" : count]
        if depth > 0 { args += ["-d", "\(depth)"] }
        args += ["-fa", "1"]
        if kv == .q8_0 { args += ["-ctk", "q8_0", "-ctv", "q8_0"] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = args
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        // The child's own high-water mark, sampled while it runs: getrusage(RUSAGE_CHILDREN)
        // would report at least our own peak (exec records the forked parent's).
        let peak = PeakRSSWatcher(pid: process.processIdentifier)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let peakMiB = peak.stop()
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let object = try? JSONValue(parsing: String(line)), let mean = object["avg_ts"]?.doubleValue else { continue }
            return Result(mean: mean, stddev: object["stddev_ts"]?.doubleValue ?? 0, peakRSSMiB: peakMiB)
        }
        return nil
    }
}

extension LlamaBench.Result {
    /// One result from single-repetition runs: the mean and standard deviation of their t/s (as
    /// llama-bench computes them over its repetitions) and the largest peak resident set.
    init(runs: [LlamaBench.Result]) {
        let stats = meanAndStddev(runs.map(\.mean))
        self.init(mean: stats.mean, stddev: stats.stddev, peakRSSMiB: runs.compactMap(\.peakRSSMiB).max())
    }
}

/// Polls /proc/PID/status for VmHWM (peak resident set, monotonic) every 20 ms on a thread of its
/// own until stopped; the last value read is the process's peak up to then.
final class PeakRSSWatcher: @unchecked Sendable {
    private let lock = NSLock()
    private var kib = 0, running = true

    init(pid: Int32) {
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                   let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                   let value = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") {
                    lock.withLock { kib = max(kib, value) }
                }
                usleep(20_000)
            }
        }
    }

    /// Stops polling; the peak seen, MiB (nil if never read).
    func stop() -> Double? {
        lock.withLock {
            running = false
            return kib > 0 ? Double(kib) / 1024 : nil
        }
    }
}
