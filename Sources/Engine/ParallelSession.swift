import CKernels

/// Keeps the kernels' worker threads attached across many parallel regions.
public enum ParallelSession {
    /// Runs `body(&context)` on the calling thread while `threads − 1` workers wait for the kernel
    /// calls it makes: every matmul, attention or quantization inside runs on the same workers
    /// through one libomp region (see `ck_parallel_session`), so a decode step pays one fork/join
    /// instead of ~5 per layer. Results are the same as without a session. With `threads` ≤ 1, or
    /// inside another session, it just runs `body`. `body` is a C function over a pointer to
    /// `context` (not a Swift closure) so that a session per token allocates nothing.
    public static func run<Context>(threads: Int, context: inout Context,
                                    _ body: @convention(c) (UnsafeMutableRawPointer?) -> Void) {
        withUnsafeMutablePointer(to: &context) { ck_parallel_session(body, $0, Int32(max(1, threads))) }
    }
}
