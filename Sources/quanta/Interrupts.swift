// Ctrl-C as task cancellation: the library stops a cancelled request between prefill batches
// and before every token, so the CLI only has to turn SIGINT into `Task.cancel()`.
#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// How a body run under `cancellingOnInterrupt` ended.
enum InterruptOutcome: Equatable {
    case finished
    case interrupted
    case failed(String)
}

/// Runs `body`, cancelling it when Ctrl-C is pressed. SIGINT is delivered to a dispatch signal
/// source (the process ignores it meanwhile), so nothing polls while the body runs.
func cancellingOnInterrupt(_ body: @escaping @Sendable () async throws -> Void) async -> InterruptOutcome {
    interrupted = 0
    let work = Task { try await body() }
    signal(SIGINT, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    source.setEventHandler {
        interrupted = 1
        work.cancel()
    }
    source.resume()
    defer {
        source.cancel()
        installInterruptHandler()
    }
    do {
        try await work.value
        return interrupted != 0 ? .interrupted : .finished
    } catch is CancellationError {
        return .interrupted
    } catch {
        return interrupted != 0 ? .interrupted : .failed("\(error)")
    }
}
