// libmicrohttpd behind `HTTPHandler`. libmicrohttpd parses HTTP; this file only moves requests
// and replies across. Its callbacks are C function pointers run on its one polling thread: each
// finds its Swift objects through an unmanaged pointer, takes a lock, never awaits. A request
// whose reply is not ready suspends its connection; the reply resumes it. A suspended connection's
// socket is not polled by libmicrohttpd, so a thread of our own watches those for the client leaving.
import CMicroHTTPD
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Why the daemon did not start.
public struct HTTPDaemonError: Error, CustomStringConvertible {
    public var description: String
}

/// A running HTTP server on one address.
public final class HTTPDaemon: Sendable {
    /// Limits a client cannot exceed.
    public struct Limits: Sendable {
        /// Largest request body in bytes; more is answered 413.
        public var maximumBody: Int = 8 << 20
        /// Connections open at once (beyond them the listening socket is not accepted from).
        public var maximumConnections: Int = 256
        public init() {}
    }

    /// The port the daemon listens on.
    public let port: Int
    private let daemon: Mutex<MHDHandle?>
    private let context: Unmanaged<DaemonContext>

    /// Listens on `host` (an IPv4 or IPv6 literal) and `port` (0: any free port).
    public init(host: String, port: Int, limits: Limits = Limits(), handler: any HTTPHandler) throws {
        let context = Unmanaged.passRetained(DaemonContext(handler: handler, limits: limits))
        var v4 = sockaddr_in(), v6 = sockaddr_in6()
        let ipv6: Bool
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            ipv6 = false
        } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            ipv6 = true
        } else {
            context.release()
            throw HTTPDaemonError(description: "--host takes an IPv4 or IPv6 address, got '\(host)'")
        }
        let started: OpaquePointer? = ipv6
            ? withUnsafePointer(to: &v6) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Self.start($0, ipv6: true, context: context) }
            }
            : withUnsafePointer(to: &v4) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Self.start($0, ipv6: false, context: context) }
            }
        guard let started else {
            context.release()
            throw HTTPDaemonError(description: "cannot listen on \(host):\(port) (address in use or not available)")
        }
        self.daemon = Mutex(MHDHandle(started))
        self.context = context
        self.port = Int(quanta_mhd_bound_port(started))
        context.takeUnretainedValue().startWatchingDisconnects()
    }

    private static func start(_ address: UnsafePointer<sockaddr>, ipv6: Bool, context: Unmanaged<DaemonContext>) -> OpaquePointer? {
        let raw = context.toOpaque()
        // Per-connection memory: headers plus one upload chunk (bodies accumulate in Swift).
        return quanta_mhd_start(address, ipv6 ? 1 : 0, accessHandler, raw, completedHandler, raw,
                                UInt32(context.takeUnretainedValue().limits.maximumConnections), 64 << 10)
    }

    /// Stops the daemon: every waiting connection is woken first (libmicrohttpd must not be
    /// stopped with a suspended connection), then the listening socket and all connections close.
    public func stop() {
        guard let d = daemon.withLock({ d -> MHDHandle? in defer { d = nil }; return d })?.pointer else { return }
        context.takeUnretainedValue().stopWatchingDisconnects()
        context.takeUnretainedValue().releaseAll()
        MHD_stop_daemon(d)
        context.release()
    }

    /// Stops accepting new connections; the open ones carry on.
    /// Requests accepted whose reply is not fully sent yet: a drain waits for these, not only for
    /// the engine, since a stream's last events and `[DONE]` go out after its generation ends.
    public var openRequests: Int { context.takeUnretainedValue().openRequests }

    public func stopAccepting() {
        daemon.withLock { d in
            if let d {
                let fd = MHD_quiesce_daemon(d.pointer)
                if fd >= 0 { close(fd) }
            }
        }
    }
}

/// What the callbacks share: the handler, the limits and the requests in flight.
final class DaemonContext: Sendable {
    let handler: any HTTPHandler
    let limits: HTTPDaemon.Limits
    private let live = Mutex<[ObjectIdentifier: ConnectionContext]>([:])
    private let watching = Mutex(true)

    init(handler: any HTTPHandler, limits: HTTPDaemon.Limits) {
        self.handler = handler
        self.limits = limits
    }

    func register(_ c: ConnectionContext) { live.withLock { $0[ObjectIdentifier(c)] = c } }
    func unregister(_ c: ConnectionContext) { live.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(c)) } }
    /// Requests whose reply libmicrohttpd has not finished sending yet.
    var openRequests: Int { live.withLock { $0.count } }

    /// Aborts and wakes every request in flight.
    func releaseAll() {
        for c in live.withLock({ Array($0.values) }) { c.abortAndRelease() }
    }

    /// Watches, on a thread of its own, the sockets of the connections suspended until their whole
    /// reply is ready: poll(2) wakes as soon as a client closes, and its request is aborted (within
    /// the token being computed) and its connection woken. The list is re-read every 10 ms.
    func startWatchingDisconnects() {
        Thread.detachNewThread { [self] in
            while watching.withLock({ $0 }) {
                let waiting = live.withLock { $0.values.filter { $0.socket >= 0 && $0.awaitsWholeReply } }
                guard !waiting.isEmpty else {
                    usleep(10_000)
                    continue
                }
                let sockets = waiting.prefix(1024).map(\.socket)
                var closed = [UInt8](repeating: 0, count: sockets.count)
                guard quanta_wait_for_peer_close(sockets, &closed, Int32(sockets.count), 10) > 0 else { continue }
                for (c, flag) in zip(waiting, closed) where flag != 0 { c.clientLeft() }
            }
        }
    }

    func stopWatchingDisconnects() { watching.withLock { $0 = false } }
}

/// One request on one connection, from its headers to its completion.
final class ConnectionContext: Sendable {
    private struct State {
        var body: [UInt8] = []
        var tooLarge = false
        var dispatched = false
        var reply: HTTPReply?
        var suspended = false
        var stream: EventStreamBody?
    }
    nonisolated(unsafe) let connection: OpaquePointer
    /// The connection's socket, for the disconnect watcher (-1: unknown, not watched).
    let socket: Int32
    let method: String
    let path: String
    let headers: [String: String]
    let abort = AbortSignal()
    private let state = Mutex(State())

    init(connection: OpaquePointer, method: String, path: String, headers: [String: String]) {
        self.connection = connection
        socket = quanta_mhd_connection_fd(connection)
        self.method = method
        self.path = path
        self.headers = headers
    }

    /// Appends an upload chunk; false once the body is over `limit` (the rest is dropped).
    func append(_ bytes: UnsafeRawBufferPointer, limit: Int) {
        state.withLock { s in
            guard !s.tooLarge else { return }
            if s.body.count + bytes.count > limit {
                s.tooLarge = true
                s.body = []
            } else {
                s.body.append(contentsOf: bytes)
            }
        }
    }

    var isTooLarge: Bool { state.withLock { $0.tooLarge } }

    /// Hands the request to `handler` once; returns the reply if it is ready now, else suspends
    /// the connection until `deliver` resumes it.
    func dispatch(to handler: any HTTPHandler) -> HTTPReply? {
        let first = state.withLock { s -> Bool in
            defer { s.dispatched = true }
            return !s.dispatched
        }
        if first {
            let request = HTTPRequest(method: method, path: path, headers: headers, body: state.withLock { $0.body }, abort: abort)
            handler.handle(request) { [self] reply in deliver(reply) }
        }
        return state.withLock { s -> HTTPReply? in
            if let reply = s.reply {
                s.reply = nil
                if case let .stream(body) = reply { s.stream = body }
                return reply
            }
            if !s.suspended {
                s.suspended = true
                MHD_suspend_connection(connection)
            }
            return nil
        }
    }

    private func deliver(_ reply: HTTPReply) {
        state.withLock { s in
            s.reply = reply
            if s.suspended {
                s.suspended = false
                MHD_resume_connection(connection)
            }
        }
    }

    /// Whether the connection is suspended until its whole reply is ready (not a stream's wait).
    var awaitsWholeReply: Bool { state.withLock { $0.suspended && $0.reply == nil } }

    /// The server stops: cancel the work, wake the connection with a 503.
    func abortAndRelease() {
        abortAndRelease(replying: #"{"error":{"message":"the server is stopping","type":"server_error","param":null,"code":"shutting_down"}}"#,
                        status: 503)
    }

    /// The client closed its connection while waiting for a whole reply: cancel the work and wake
    /// the connection, so libmicrohttpd finds the socket closed and ends the request (the reply,
    /// nginx's 499, reaches nobody).
    func clientLeft() {
        abortAndRelease(replying: #"{"error":{"message":"the client closed the connection","type":"invalid_request_error","param":null,"code":"client_closed_request"}}"#,
                        status: 499)
    }

    private func abortAndRelease(replying body: String, status: Int) {
        abort.fire()
        let stream = state.withLock { s -> EventStreamBody? in
            if s.suspended && s.reply == nil {
                s.reply = .full(status: status, headers: [], body: Array(body.utf8))
                s.suspended = false
                MHD_resume_connection(connection)
            }
            return s.stream
        }
        stream?.release()
    }
}

// MARK: - C callbacks

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, connectionContext in
    guard let cls, let connection, let connectionContext, let uploadSize else { return .NO }
    let daemon = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()
    guard let existing = connectionContext.pointee else {
        // First call: headers only. A declared body over the limit is refused before it is read.
        let headers = readHeaders(connection)
        let c = ConnectionContext(connection: connection, method: method.map { String(cString: $0) } ?? "",
                                  path: url.map { String(cString: $0) } ?? "/", headers: headers)
        daemon.register(c)
        connectionContext.pointee = Unmanaged.passRetained(c).toOpaque()
        if let length = headers["content-length"].flatMap(Int.init), length > daemon.limits.maximumBody {
            return queue(.full(status: 413, headers: [], body: Array(tooLargeBody(daemon.limits.maximumBody).utf8)), on: connection)
        }
        return .YES
    }
    let c = Unmanaged<ConnectionContext>.fromOpaque(existing).takeUnretainedValue()
    if uploadSize.pointee > 0 {
        if let uploadData { c.append(UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee), limit: daemon.limits.maximumBody) }
        uploadSize.pointee = 0
        return .YES
    }
    if c.isTooLarge {
        return queue(.full(status: 413, headers: [], body: Array(tooLargeBody(daemon.limits.maximumBody).utf8)), on: connection)
    }
    guard let reply = c.dispatch(to: daemon.handler) else { return .YES }
    return queue(reply, on: connection)
}

private let completedHandler: MHD_RequestCompletedCallback = { cls, _, connectionContext, termination in
    guard let cls, let connectionContext, let pointer = connectionContext.pointee else { return }
    let daemon = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()
    let c = Unmanaged<ConnectionContext>.fromOpaque(pointer)
    connectionContext.pointee = nil
    let context = c.takeUnretainedValue()
    if termination != .REQUEST_TERMINATED_COMPLETED_OK { context.abort.fire() }
    daemon.unregister(context)
    c.release()
}

private func tooLargeBody(_ limit: Int) -> String {
    #"{"error":{"message":"the request body is over the limit of \#(limit) bytes","type":"invalid_request_error","param":null,"code":"request_too_large"}}"#
}

private func readHeaders(_ connection: OpaquePointer) -> [String: String] {
    var headers: [String: String] = [:]
    withUnsafeMutablePointer(to: &headers) { pointer in
        _ = MHD_get_connection_values(connection, .HEADER_KIND, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let headers = cls.assumingMemoryBound(to: [String: String].self)
            headers.pointee[String(cString: key).lowercased()] = value.map { String(cString: $0) } ?? ""
            return .YES
        }, pointer)
    }
    return headers
}

private func queue(_ reply: HTTPReply, on connection: OpaquePointer) -> MHD_Result {
    switch reply {
    case let .full(status, headers, body):
        let response = body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let response else { return .NO }
        defer { MHD_destroy_response(response) }
        var all = headers
        if !all.contains(where: { $0.0.lowercased() == "content-type" }) { all.append(("Content-Type", "application/json")) }
        for (name, value) in all { MHD_add_response_header(response, name, value) }
        return MHD_queue_response(connection, UInt32(status), response)
    case let .stream(body):
        body.attach(connection)
        let bodyPointer = Unmanaged.passRetained(body).toOpaque()
        guard let response = MHD_create_response_from_callback(UInt64.max, 4096, { cls, _, buffer, max in
            guard let cls, let buffer else { return Int(MHD_CONTENT_READER_END_WITH_ERROR) }
            return Unmanaged<EventStreamBody>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, max: max)
        }, bodyPointer, { cls in
            if let cls { Unmanaged<EventStreamBody>.fromOpaque(cls).release() }
        }) else {
            Unmanaged<EventStreamBody>.fromOpaque(bodyPointer).release()
            return .NO
        }
        defer { MHD_destroy_response(response) }
        MHD_add_response_header(response, "Content-Type", body.contentType)
        MHD_add_response_header(response, "Cache-Control", "no-cache")
        return MHD_queue_response(connection, 200, response)
    }
}
