// One streamed `POST /v1/chat/completions` as a client sees it, timed: `bench serve`'s client.
// URLSession (FoundationNetworking, part of the toolchain) keeps the client in this process and on
// this clock, with no interpreter started per request; the server-sent events are read here.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
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

/// Sends one streamed chat request and blocks until its stream ends (or `timeout` seconds pass).
func streamChat(url: URL, body: Data, timeout: Double) -> StreamedAnswer {
    let reader = EventStreamReader()
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeout
    configuration.timeoutIntervalForResource = timeout
    let session = URLSession(configuration: configuration, delegate: reader, delegateQueue: nil)
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.httpBody = body
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    reader.answer.sent = now()
    session.dataTask(with: request).resume()
    if reader.done.wait(timeout: .now() + timeout + 5) == .timedOut {
        reader.answer.failure = reader.answer.failure ?? "no answer within \(Int(timeout)) s"
    }
    session.invalidateAndCancel()
    return reader.answer
}

/// The URLSession delegate that splits the body into server-sent events as it arrives.
private final class EventStreamReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// Written only from the session's delegate queue (serial), read after `done`.
    var answer = StreamedAnswer()
    let done = DispatchSemaphore(value: 0)
    private var pending = Data()
    private var sawDone = false
    private var status = 0

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        status = (response as? HTTPURLResponse)?.statusCode ?? 0
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let arrived = now()
        pending.append(data)
        guard status == 200 else { return }   // an error body, kept whole for the failure line
        // Events are lines `data: {...}` ended by a blank line; comments (`: waiting`) are skipped.
        while let end = pending.firstRange(of: Data("\n".utf8)) {
            let line = String(decoding: pending[pending.startIndex..<end.lowerBound], as: UTF8.self)
            pending.removeSubrange(pending.startIndex..<end.upperBound)
            guard line.hasPrefix("data:") else { continue }
            event(line.dropFirst(5).trimmingCharacters(in: .whitespaces), at: arrived)
        }
    }

    private func event(_ payload: String, at time: Double) {
        if payload == "[DONE]" {
            sawDone = true
            return
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any] else {
            answer.failure = "an event that is not a JSON object: \(payload.prefix(120))"
            return
        }
        if let error = object["error"] {
            answer.failure = "error event: \(error)"
            return
        }
        if let usage = object["usage"] as? [String: Any] {
            answer.promptTokens = usage["prompt_tokens"] as? Int
            answer.completionTokens = usage["completion_tokens"] as? Int
        }
        let choice = (object["choices"] as? [[String: Any]])?.first
        if let content = (choice?["delta"] as? [String: Any])?["content"] as? String, !content.isEmpty {
            answer.contentChunks += 1
            answer.text += content
            if answer.firstToken == nil { answer.firstToken = time }
            answer.lastToken = time
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        answer.finished = now()
        if let error {
            answer.failure = answer.failure ?? "transport: \(error.localizedDescription)"
        } else if status != 200 {
            answer.failure = answer.failure ?? "HTTP \(status): \(String(decoding: pending.prefix(200), as: UTF8.self))"
        } else if !sawDone {
            answer.failure = answer.failure ?? "the stream ended without data: [DONE]"
        } else if answer.completionTokens == nil {
            answer.failure = answer.failure ?? "no usage in the stream"
        }
        done.signal()
    }
}
