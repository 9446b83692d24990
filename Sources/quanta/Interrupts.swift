// Ctrl-C as task cancellation: the library stops a cancelled request between prefill batches
// and before every token, so the CLI only has to turn SIGINT into `Task.cancel()`.

/// How a body run under `cancellingOnInterrupt` ended.
enum InterruptOutcome: Equatable {
    case finished
    case interrupted
    case failed(String)

}

/// Runs `body`, cancelling it when Ctrl-C is pressed (the SIGINT handler sets `interrupted`;
/// a watcher polls it every 20 ms, since a signal handler may not touch tasks).
func cancellingOnInterrupt(_ body: @escaping @Sendable () async throws -> Void) async -> InterruptOutcome {
    interrupted = 0
    let work = Task { try await body() }
    let watcher = Task {
        while !Task.isCancelled {
            if interrupted != 0 {
                work.cancel()
                return
            }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
    }
    defer { watcher.cancel() }
    do {
        try await work.value
        return interrupted != 0 ? .interrupted : .finished
    } catch is CancellationError {
        return .interrupted
    } catch {
        return interrupted != 0 ? .interrupted : .failed("\(error)")
    }
}
