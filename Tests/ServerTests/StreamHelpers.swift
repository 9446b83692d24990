import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Starts curl streaming `body` in the background; its output grows in the returned file.
func startStream(_ url: String, body: String) throws -> (Process, URL) {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("quanta-sse-\(UUID().uuidString)")
    guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: output.path])
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["curl", "-s", "-N", "--max-time", "120", "-H", "Content-Type: application/json", "--data-binary", body, url]
    p.standardOutput = try FileHandle(forWritingTo: output)
    p.standardError = FileHandle.nullDevice
    try p.run()
    return (p, output)
}

/// Waits (at most 60 s) until `file` holds `count` content events.
func waitForEvents(_ file: URL, count: Int) throws -> String {
    for _ in 0..<6000 {
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        if text.components(separatedBy: "\"content\":").count - 1 >= count { return text }
        usleep(10_000)
    }
    Issue.record("no \(count) events in 60 s")
    return ""
}

/// Retries a two-token request every 20 ms until it is answered 200 (at most 500 tries); returns
/// how many 503s came first.
func refusalsBeforeAccepted(_ url: String) throws -> Int {
    var refused = 0
    for _ in 0..<500 {
        let status = try curl(url, body: #"{"messages":[{"role":"user","content":"hi"}],"max_tokens":2}"#).status
        if status == 200 { return refused }
        #expect(status == 503)
        refused += 1
        usleep(20_000)
    }
    Issue.record("never accepted")
    return refused
}
