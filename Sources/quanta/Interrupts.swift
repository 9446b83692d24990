#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// How a run under `Interrupts` ended.
enum InterruptOutcome: Equatable {
    case finished
    case interrupted
    case failed(String)
}

/// Ctrl-C as task cancellation, for a whole command: one SIGINT source that lives as long as the
/// command (a chat, a generation), cancelling the run that is going on when the signal comes; the
/// library stops a cancelled request between prefill batches and before every token. SIGINT stays
/// ignored and blocked in every thread (libdispatch's threads and the main queue block it), so it
/// always reaches this source — a handler reinstalled between runs would unblock it in one thread
/// and lose later presses there.
final class Interrupts: @unchecked Sendable {
    private let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    /// The running reply, nil between replies.
    private let reply = Mutex<Task<Void, any Error>?>(nil)
    private let pressed = Atomic<Bool>(false)

    /// `quitsBetweenReplies`: Ctrl-C outside a run ends the process (exit 130), as a chat on
    /// piped input wants; on a terminal the line editor reads Ctrl-C as a key instead.
    init(quitsBetweenReplies: Bool) {
        signal(SIGINT, SIG_IGN)
        source.setEventHandler { [unowned self] in
            guard let task = reply.withLock({ $0 }) else {
                if quitsBetweenReplies { exit(130) }
                return
            }
            pressed.store(true, ordering: .relaxed)
            task.cancel()
        }
        source.resume()
    }

    /// Runs `body` (one reply, one generation); Ctrl-C cancels it.
    func run(_ body: @escaping @Sendable () async throws -> Void) async -> InterruptOutcome {
        pressed.store(false, ordering: .relaxed)
        let task = Task { try await body() }
        reply.withLock { $0 = task }
        defer { reply.withLock { $0 = nil } }
        do {
            try await task.value
            return pressed.load(ordering: .relaxed) ? .interrupted : .finished
        } catch is CancellationError {
            return .interrupted
        } catch {
            return pressed.load(ordering: .relaxed) ? .interrupted : .failed("\(error)")
        }
    }
}
