#if canImport(Glibc)
import Glibc
#endif

/// The model is memory-mapped: if the file shrinks while in use (truncated, or replaced in place
/// by a copy), touching a page past its new end raises SIGBUS. Report that in one line and exit 1
/// instead of dying with "Bus error". Nothing can be recovered at that point: the fault may be in
/// any kernel or thread, so the handler only writes and exits.
func installTruncatedModelHandler() {
    unblock(SIGBUS)
    signal(SIGBUS) { _ in
        let message: StaticString =
            "quanta: error: the model file ended early while in use (truncated or replaced after loading); reload it\n"
        _ = write(2, message.utf8Start, message.utf8CodeUnitCount)
        _exit(1)
    }
}

/// A parent's blocked signals are inherited (a process spawned from a libdispatch worker thread
/// starts with SIGINT blocked, so Ctrl-C sent to it would stay pending forever): a handler is
/// only useful once the signal is unblocked. Threads started later inherit this mask.
private func unblock(_ signal: Int32) {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, signal)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
}
