// The body of a streamed response: the engine writes, libmicrohttpd reads. The reader never
// spins: with nothing to send it suspends the connection, and the next write resumes it.
import CMicroHTTPD
import Synchronization

/// Bytes waiting to be sent on one streaming connection. Writers are any thread; reads come from
/// libmicrohttpd's thread through `read(into:max:)`.
public final class EventStreamBody: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var finished = false
        /// The connection, once the response is queued (reads suspend and resume it).
        var connection: MHDHandle?
        var suspended = false
    }
    private let state = Mutex(State())
    /// The stream's media type: server-sent events, or `application/x-ndjson` for Ollama's lines.
    public let contentType: String

    public init(contentType: String = "text/event-stream") { self.contentType = contentType }

    /// Queues `text` to be sent.
    public func write(_ text: String) {
        state.withLock { s in
            guard !s.finished else { return }
            s.pending.append(contentsOf: text.utf8)
            Self.wake(&s)
        }
    }

    /// Ends the stream once what is queued is sent.
    public func finish() {
        state.withLock { s in
            s.finished = true
            Self.wake(&s)
        }
    }

    /// Whether `finish` was called.
    public var isFinished: Bool { state.withLock { $0.finished } }

    private static func wake(_ s: inout State) {
        if s.suspended, let connection = s.connection {
            s.suspended = false
            MHD_resume_connection(connection.pointer)
        }
    }

    /// Binds the body to its connection (before the first read).
    func attach(_ connection: OpaquePointer) {
        state.withLock { $0.connection = MHDHandle(connection) }
    }

    /// Wakes a suspended connection so it can be closed (the server is stopping).
    func release() {
        state.withLock { s in
            s.finished = true
            Self.wake(&s)
        }
    }

    /// Copies up to `max` queued bytes to `buffer`: the count, `MHD_CONTENT_READER_END_OF_STREAM`
    /// at the end, or 0 after suspending the connection when nothing is queued yet (legal only
    /// with that suspension: the internal polling thread would otherwise call again at once).
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        state.withLock { s in
            if !s.pending.isEmpty {
                let n = min(max, s.pending.count)
                s.pending.withUnsafeBufferPointer { source in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress!, byteCount: n)
                }
                s.pending.removeFirst(n)
                return n
            }
            if s.finished { return Int(MHD_CONTENT_READER_END_OF_STREAM) }
            if let connection = s.connection, !s.suspended {
                s.suspended = true
                MHD_suspend_connection(connection.pointer)
            }
            return 0
        }
    }
}

/// A libmicrohttpd daemon or connection pointer. libmicrohttpd allows resuming a connection from
/// any thread and the daemon calls are made under a lock, so handing the pointer between threads
/// is safe.
struct MHDHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}
