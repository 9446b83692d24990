import CKernels
import GGUF

/// The decode roofline: the tokens/s a decode step would reach if it only had to stream its
/// bytes — the weights it multiplies plus the K/V rows its attention reads — at the machine's
/// measured streaming read rate (ck_bench_stream_read, the same read KernelBench compares to).
enum Roofline {
    nonisolated(unsafe) private static var streamRates: [Int: Double] = [:]   // bench is single-threaded here

    /// Median streaming read rate, bytes/s, over a 256 MiB buffer (beyond every cache) on
    /// `threads` threads; measured once per thread count.
    static func streamBytesPerSecond(threads: Int) -> Double {
        if let rate = streamRates[threads] { return rate }
        let bytes = 256 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 1, count: bytes)
        let seconds = timeIt(budget: 1) { _ = ck_bench_stream_read(buffer, bytes, Int32(threads)) }
        let rate = Double(bytes) / seconds
        streamRates[threads] = rate
        return rate
    }

    /// Weight bytes one decode token reads, as stored in the file: every tensor except the token
    /// embedding, of which one row is read — unless the embedding is also the output matrix (no
    /// `output.weight`), which reads it whole.
    static func weightBytesPerToken(_ file: GGUFFile) -> Int {
        let all = file.tensors.reduce(0) { $0 + $1.byteCount }
        guard file.tensor(named: "output.weight") != nil, let embedding = file.tensor(named: "token_embd.weight") else { return all }
        return all - embedding.byteCount
    }

    /// Roofline tokens/s for a decode step reading `weightBytes` of weights and `kvBytes` of cache.
    static func tokensPerSecond(weightBytes: Int, kvBytes: Double, threads: Int) -> Double {
        streamBytesPerSecond(threads: threads) / (Double(weightBytes) + kvBytes)
    }
}
