// What the HTTP layer hands a handler and what a handler answers: plain values, no libmicrohttpd.
import Synchronization

/// One HTTP request, its body read whole.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, ...
    public var method: String
    /// The path without the query (`/v1/chat/completions`).
    public var path: String
    /// Header names in lower case.
    public var headers: [String: String]
    /// The body (at most the server's limit).
    public var body: [UInt8]
    /// Fires when the client goes away before the answer is complete.
    public var abort: AbortSignal

    public init(method: String, path: String, headers: [String: String] = [:], body: [UInt8] = [], abort: AbortSignal = AbortSignal()) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.abort = abort
    }
}

/// An answer: a whole body, or a server-sent event stream written as it is produced.
public enum HTTPReply: Sendable {
    case full(status: Int, headers: [(String, String)], body: [UInt8])
    /// Status 200, `text/event-stream`; the handler writes into the body and finishes it.
    case stream(EventStreamBody)
}

/// Runs the actions registered with it once, when the client disconnects early (or the server
/// stops); an action registered after that runs at once.
public final class AbortSignal: Sendable {
    private struct State {
        var fired = false
        var actions: [@Sendable () -> Void] = []
    }
    private let state = Mutex(State())

    public init() {}

    /// Whether the client has gone.
    public var isAborted: Bool { state.withLock { $0.fired } }

    /// Runs `action` when the signal fires (at once if it has).
    public func onAbort(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { s -> Bool in
            if s.fired { return true }
            s.actions.append(action)
            return false
        }
        if runNow { action() }
    }

    /// Fires the signal (later calls do nothing).
    public func fire() {
        let actions = state.withLock { s -> [@Sendable () -> Void] in
            if s.fired { return [] }
            s.fired = true
            defer { s.actions = [] }
            return s.actions
        }
        for action in actions { action() }
    }
}

/// Answers requests. Called on the HTTP thread, so it must not block: it returns quickly and
/// calls `reply` once, then or later, from any thread.
public protocol HTTPHandler: Sendable {
    func handle(_ request: HTTPRequest, reply: @escaping @Sendable (HTTPReply) -> Void)
}

extension APIError {
    /// The whole HTTP reply.
    var reply: HTTPReply {
        var headers: [(String, String)] = []
        if status == 503 { headers.append(("Retry-After", "1")) }
        if status == 401 { headers.append(("WWW-Authenticate", "Bearer")) }
        return .full(status: status, headers: headers, body: Array(json.jsonText.utf8))
    }
}
