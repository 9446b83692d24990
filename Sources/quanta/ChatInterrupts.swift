#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// Ctrl-C for a whole chat: one SIGINT source that lives as long as the chat, cancelling the
/// reply that runs when the signal comes. `cancellingOnInterrupt` suits one-shot commands, but
/// the handler it reinstalls afterwards unblocks SIGINT in whichever thread ran it; from then on
/// the kernel may deliver SIGINT to that thread, where it is ignored, and a later reply could
/// not be stopped. Here SIGINT stays blocked in every thread (libdispatch's threads and the main
/// queue block it) and ignored, so it always reaches this source.
final class ChatInterrupts: @unchecked Sendable {
    private let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    /// The running reply, nil between replies.
    private let reply = Mutex<Task<Void, any Error>?>(nil)
    private let pressed = Atomic<Bool>(false)

    /// `quitsBetweenReplies`: Ctrl-C outside a reply ends the chat (exit 130), as it did with
    /// piped input; on a terminal the line editor reads Ctrl-C as a key instead.
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

    /// Runs one reply; Ctrl-C cancels it (the library stops between prefill batches and before
    /// every token).
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
