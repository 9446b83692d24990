import CKernels
import Foundation
import Architectures
import Engine
import GGUF

/// The decode roofline: the tokens/s a decode step would reach if it only had to stream its
/// bytes — the weights it multiplies plus the K/V rows its attention reads — at the machine's
/// measured streaming read rate (ck_bench_stream_read, the same read KernelBench compares to).
enum Roofline {
    /// Median streaming read rate, bytes/s, on `threads` threads, measured now in a child process
    /// (`bench __stream-rate N`) so its buffer does not count in the peak RSS reported for the
    /// models. Each tg row measures its own, right before and right after its runs, so that it
    /// meets the read rate of its own moment: the rate drifts by up to 2x within minutes on a
    /// shared host.
    static func streamBytesPerSecond(threads: Int) -> Double {
        let child = Process()
        let output = Pipe()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = [streamRateSuite, String(threads)]
        child.standardOutput = output
        return (try? child.run()).flatMap { _ -> Double? in
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            child.waitUntilExit()
            return Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
        } ?? .nan
    }

    /// Bytes a read must cover so that no cache holds it: four times the L3 the system reports,
    /// at least 256 MiB (a VM may report less L3 than its host's CPU has), at most 2 GiB.
    static var uncachedBytes: Int {
        let l3 = max(0, sysconf(Int32(_SC_LEVEL3_CACHE_SIZE)))
        return min(2 << 30, max(256 << 20, 4 * l3))
    }

    /// The hidden suite that measures the streaming read rate for the parent.
    static let streamRateSuite = "__stream-rate"

    /// `bench __stream-rate N`: prints bytes/s read on N threads from a buffer of `uncachedBytes`,
    /// so no cache holds it.
    static func printStreamRate(_ arguments: [String]) -> Int32 {
        let threads = arguments.first.flatMap { Int($0) } ?? 1
        let bytes = uncachedBytes
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 1, count: bytes)
        let seconds = timeIt(budget: 1) { _ = ck_bench_stream_read(buffer, bytes, Int32(threads)) }
        print(Double(bytes) / seconds)
        return 0
    }

    /// Weight bytes one decode token reads: every tensor except the token embedding, of which one
    /// row is read — unless the embedding is also the output matrix (no `output.weight`), which
    /// reads it whole. Natively the file's bytes; with a `--weights` conversion the matrices (the
    /// 2-D tensors) count in the format they are converted to, which is what decode streams.
    static func weightBytesPerToken(_ file: GGUFFile, weights: WeightMode = .native) -> Int {
        func bytes(_ tensor: GGUFTensorInfo) -> Int {
            guard case let .converted(format) = weights, tensor.shape.count == 2 else { return tensor.byteCount }
            return tensor.shape[1] * format.rowBytes(k: tensor.shape[0])
        }
        let all = file.tensors.reduce(0) { $0 + bytes($1) }
        guard file.tensor(named: "output.weight") != nil, let embedding = file.tensor(named: "token_embd.weight") else { return all }
        return all - bytes(embedding)
    }

    /// Roofline tokens/s for a decode step reading `weightBytes` of weights and `kvBytes` of
    /// cache at `readRate` bytes/s.
    static func tokensPerSecond(readRate: Double, weightBytes: Int, kvBytes: Double) -> Double {
        readRate / (Double(weightBytes) + kvBytes)
    }
}
