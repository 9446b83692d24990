/// Where and how a forward pass's kernels run: the threads they may use, the kernel table they
/// run (a forced `KernelPath` for tests and benchmarks; nil = `KernelPath.active`), and the
/// scratch holding each matmul's quantized activations. Made once with the state that owns it
/// and handed to every op, so no op takes threads, a path or a scratch of its own.
///
/// Not thread-safe (the scratch is overwritten by every matmul): one per forward state.
public final class ExecutionContext: @unchecked Sendable {
    /// Threads each op may split its work over (1: the calling thread only).
    public var threads: Int
    /// The kernel table every op of this context runs; nil follows `KernelPath.active`.
    public var path: KernelPath?
    /// Quantized activations of the current matmul input, `[maxRows][maxK]` at most.
    public let matmulScratch: MatmulScratch

    /// - Parameters:
    ///   - maxRows: most rows one op sees (the batch), `maxK` the longest matmul input (a multiple of 32).
    public init(threads: Int = 1, path: KernelPath? = nil, maxRows: Int, maxK: Int) {
        self.threads = max(1, threads)
        self.path = path
        matmulScratch = MatmulScratch(maxRows: maxRows, maxK: maxK)
    }

    /// `threads` as the C kernels take it.
    var ckThreads: Int32 { Int32(max(1, threads)) }
    /// `path` as the C kernels take it: a `ck_kernel_path`, or -1 for the active one.
    var ckPath: Int32 { path.map { Int32($0.rawValue) } ?? -1 }
}
