import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The raw event stream as curl receives it, and a full queue. One slot and no queue
/// (`-np 1 --queue 0`). Time cap: about 20 s (two model loads, about 80 tokens).
@Suite(.serialized) struct EventStreamTests {
    @Test func theEventStreamIsWellFormedAndEndsWithDone() throws {
        let server = try ServerProcess(["-np", "1", "--queue", "0"])
        defer { #expect(server.terminate() == 0) }
        let r = try curl(server.baseURL + "/v1/chat/completions",
                         body: #"{"messages":[{"role":"user","content":"Say hello."}],"max_tokens":16,"temperature":0,"stream":true}"#,
                         includeHeaders: true)
        #expect(r.status == 200)
        let parts = r.body.components(separatedBy: "\r\n\r\n")
        let head = parts[0].lowercased()
        #expect(head.contains("content-type: text/event-stream"))
        let events = parts.dropFirst().joined(separator: "\r\n\r\n")
        #expect(events.hasSuffix("data: [DONE]\n\n"))
        var finish: String?
        for block in events.components(separatedBy: "\n\n") where !block.isEmpty {
            #expect(block.hasPrefix("data: ") || block.hasPrefix(":"), "\(block)")   // an event or a comment
            guard block.hasPrefix("data: {") else { continue }
            let chunk = try #require(try JSONSerialization.jsonObject(with: Data(block.dropFirst(6).utf8)) as? [String: Any])
            #expect(chunk["object"] as? String == "chat.completion.chunk")
            let choice = (chunk["choices"] as? [[String: Any]])?.first
            if let f = choice?["finish_reason"] as? String { finish = f }
        }
        #expect(finish == "stop" || finish == "length")
    }

    @Test func aFullQueueIs503WithRetryAfter() throws {
        let server = try ServerProcess(["-np", "1", "--queue", "0"])
        defer { #expect(server.terminate() == 0) }
        let chat = server.baseURL + "/v1/chat/completions"
        let body = #"{"messages":[{"role":"user","content":"Write a story."}],"max_tokens":60,"temperature":0,"stream":true}"#
        let (client, output) = try startStream(chat, body: body)
        defer { try? FileManager.default.removeItem(at: output) }
        _ = try waitForEvents(output, count: 3)
        // The one slot is busy and nothing may wait: 503 with Retry-After.
        let busy = try curl(chat, body: #"{"messages":[{"role":"user","content":"hi"}],"max_tokens":2}"#, includeHeaders: true)
        #expect(busy.status == 503)
        #expect(busy.body.lowercased().contains("retry-after: 1"))
        #expect(busy.body.contains("\"code\":\"queue_full\""))
        client.waitUntilExit()
        #expect(try String(contentsOf: output, encoding: .utf8).hasSuffix("data: [DONE]\n\n"))
        // The finished request gave its slot back.
        #expect(try refusalsBeforeAccepted(chat) == 0)
        let metrics = try curl(server.baseURL + "/metrics", method: "GET")
        #expect(metrics.body.contains("quanta_requests_total{endpoint=\"/v1/chat/completions\",status=\"503\"} 1"))
        #expect(metrics.body.contains("quanta_requests_total{endpoint=\"/v1/chat/completions\",status=\"200\"} 2"))
        #expect(metrics.body.contains("quanta_queue_depth 0"))
        #expect(metrics.body.contains("quanta_slots_busy 0"))
    }
}
