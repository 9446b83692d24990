// One streamed `POST /v1/chat/completions` as a client sees it, timed: `bench serve`'s client.
// A blocking socket per request on the client's own thread, read as the bytes arrive: the client
// sleeps in recv(2) between events, so it takes next to no CPU from the servers it measures on the
// same cores (URLSession's event loop took over a core of two in thread wake-ups while one
// stream ran). Same process and clock for every request; no interpreter started per request.
import Foundation
import JSON
#if canImport(Glibc)
import Glibc
#endif

/// What one streamed request measured. Times are `now()` seconds.
struct StreamedAnswer {
    /// When the request was sent, its first and last chunk with answer text arrived, the stream ended.
    var sent = 0.0, firstToken: Double?, lastToken: Double?, finished = 0.0
    /// Chunks whose `delta.content` held text (one per token on both servers, except where a
    /// character's UTF-8 bytes span tokens).
    var contentChunks = 0
    /// The last chunk's `usage` (asked for with `stream_options.include_usage`).
    var promptTokens: Int?, completionTokens: Int?
    /// The answer's text, for checking two servers answer alike.
    var text = ""
    /// A transport error, a status other than 200, an error event or a missing `[DONE]`.
    var failure: String?

    /// Seconds to the first answer text.
    var timeToFirstToken: Double? { firstToken.map { $0 - sent } }

    /// Decode tokens/s of this stream: the tokens after the first over the time between the
    /// first and the last (the prefill and the first token are in the time to first token).
    var decodeRate: Double? {
        guard let first = firstToken, let last = lastToken, let n = completionTokens, n > 1, last > first else { return nil }
        return Double(n - 1) / (last - first)
    }
}

/// Sends one streamed chat request to `url` (`http://HOST:PORT/PATH`, an IPv4 host) over HTTP/1.1
/// and blocks until its stream ends (or no byte arrives for `timeout` seconds).
func streamChat(url: URL, body: Data, timeout: Double) -> StreamedAnswer {
    var reader = EventStreamReader()
    reader.answer.sent = now()
    guard let host = url.host, let port = url.port else {
        reader.answer.failure = "not an http://HOST:PORT URL: \(url)"
        return reader.answer
    }
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else {
        reader.answer.failure = "socket: errno \(errno)"
        return reader.answer
    }
    defer { close(fd) }
    var wait = timeval(tv_sec: Int(timeout), tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr(host == "localhost" ? "127.0.0.1" : host)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
    guard connected else {
        reader.answer.failure = "connect \(host):\(port): errno \(errno)"
        return reader.answer
    }
    let head = "POST \(url.path) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: application/json\r\n"
        + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
    let request = Array(head.utf8) + Array(body)
    var sent = 0
    while sent < request.count {
        let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard n > 0 else {
            reader.answer.failure = "send: errno \(errno)"
            return reader.answer
        }
        sent += n
    }
    var buffer = [UInt8](repeating: 0, count: 64 << 10)
    while true {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 && errno == EINTR { continue }
        if n < 0 {
            reader.answer.failure = reader.answer.failure ?? "no byte for \(Int(timeout)) s (errno \(errno))"
            break
        }
        if n == 0 { break }
        reader.received(buffer[0..<n], at: now())
        if reader.ended { break }
    }
    reader.finish(at: now())
    return reader.answer
}

/// Reads an HTTP/1.1 response (status line, headers, a chunked or plain body) as it arrives and
/// splits its body into server-sent events.
private struct EventStreamReader {
    var answer = StreamedAnswer()
    /// Whether the body's end was read (the last chunk of a chunked body).
    private(set) var ended = false
    private var raw: [UInt8] = [], body: [UInt8] = []
    private var status = 0, chunked = false, inHeaders = true
    /// Bytes left in the current chunk (nil: a chunk-size line comes next).
    private var chunkLeft: Int?
    private var sawDone = false

    mutating func received(_ bytes: ArraySlice<UInt8>, at time: Double) {
        raw += bytes
        if inHeaders {
            guard let end = find([13, 10, 13, 10], in: raw) else { return }
            let lines = String(decoding: raw[0..<end], as: UTF8.self).split(separator: "\r\n")
            status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
            chunked = lines.contains { $0.lowercased().hasPrefix("transfer-encoding:") && $0.lowercased().contains("chunked") }
            raw.removeFirst(end + 4)
            inHeaders = false
        }
        if chunked { dechunk() } else { body += raw; raw.removeAll() }
        guard status == 200 else { return }   // an error body, kept whole for the failure line
        // Events are lines `data: {...}` ended by a blank line; comments (`: waiting`) are skipped.
        while let end = body.firstIndex(of: 10) {
            let line = String(decoding: body[0..<end], as: UTF8.self)
            body.removeFirst(end + 1)
            guard line.hasPrefix("data:") else { continue }
            event(line.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines), at: time)
        }
    }

    /// Moves the chunks' data from `raw` to `body`.
    private mutating func dechunk() {
        while !ended {
            if let left = chunkLeft {
                let n = min(left, raw.count)
                body += raw[0..<n]
                raw.removeFirst(n)
                chunkLeft = left - n
                if left > n { return }
                guard raw.count >= 2 else { return }   // the CRLF after the chunk's data
                raw.removeFirst(2)
                chunkLeft = nil
            } else {
                guard let end = find([13, 10], in: raw) else { return }
                let size = Int(String(decoding: raw[0..<end], as: UTF8.self).split(separator: ";").first ?? "", radix: 16) ?? 0
                raw.removeFirst(end + 2)
                if size == 0 { ended = true; return }
                chunkLeft = size
            }
        }
    }

    private mutating func event(_ payload: String, at time: Double) {
        if payload == "[DONE]" {
            sawDone = true
            return
        }
        guard let object = try? JSONValue(parsing: payload), case .object = object else {
            answer.failure = "an event that is not a JSON object: \(payload.prefix(120))"
            return
        }
        if let error = object["error"] {
            answer.failure = "error event: \(error.jsonText)"
            return
        }
        if let usage = object["usage"] {
            answer.promptTokens = usage["prompt_tokens"]?.doubleValue.flatMap { Int(exactly: $0) }
            answer.completionTokens = usage["completion_tokens"]?.doubleValue.flatMap { Int(exactly: $0) }
        }
        let choice = object["choices"]?.arrayValue?.first
        if let content = choice?["delta"]?["content"]?.stringValue, !content.isEmpty {
            answer.contentChunks += 1
            answer.text += content
            if answer.firstToken == nil { answer.firstToken = time }
            answer.lastToken = time
        }
    }

    mutating func finish(at time: Double) {
        answer.finished = time
        if status != 200 {
            answer.failure = answer.failure ?? "HTTP \(status): \(String(decoding: (body + raw).prefix(200), as: UTF8.self))"
        } else if !sawDone {
            answer.failure = answer.failure ?? "the stream ended without data: [DONE]"
        } else if answer.completionTokens == nil {
            answer.failure = answer.failure ?? "no usage in the stream"
        }
    }
}

/// Where `needle` first starts in `haystack`.
private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] && Array(haystack[i..<i + needle.count]) == needle {
        return i
    }
    return nil
}
