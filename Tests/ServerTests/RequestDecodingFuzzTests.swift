import TestSupport
import Foundation
import JSON
import Testing
@testable import Server

/// Request decoding never crashes or hangs: seeded random mutations of valid chat and completion
/// bodies (bytes flipped, cut, spliced, values swapped for other JSON types) each decode or fail
/// with a 4xx error object. `QUANTA_SERVER_FUZZ_CASES` raises the count. Time cap: about 5 s.
@Suite struct RequestDecodingFuzzTests {
    static let seeds = [
        #"{"model":"m","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}],"temperature":0.5,"max_tokens":8,"stop":["\n"],"stream":true,"stream_options":{"include_usage":true}}"#,
        #"{"messages":[{"role":"user","content":[{"type":"text","text":"weather?"}]},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"w","arguments":"{\"city\":\"Paris\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"sunny"}],"tools":[{"type":"function","function":{"name":"w","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}],"tool_choice":{"type":"function","function":{"name":"w"}}}"#,
        #"{"messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"p","schema":{"type":"object","properties":{"a":{"type":"integer","minimum":0},"b":{"type":"array","items":{"type":"string"}}}}}},"seed":7,"top_k":5}"#,
    ]
    static let completionSeed = #"{"prompt":"Once","max_tokens":4,"temperature":0,"top_p":0.9,"stop":"."}"#

    /// A name or value echoed from the body keeps the error on one line (found by `make fuzz`).
    @Test func lineBreaksInEchoedNamesAreEscaped() {
        for body in [#"{"messages":[{"role":"user","content":"x"}],"a\nb\u2028c":1}"#, #"{"messages":[{"role":"user","content":"x"}],"tool_choice":{"type":"function","function":{"name":"f\r\ng"}},"tools":[{"type":"function","function":{"name":"h"}}]}"#] {
            do {
                _ = try ChatRequest(body: Array(body.utf8))
                Issue.record("accepted: \(body)")
            } catch {
                let oneLine = !error.message.contains { $0.isNewline }
                #expect(oneLine, "\(error.message.debugDescription)")
                #expect(error.message.contains(#"\n"#), "\(error.message)")
            }
        }
    }

    @Test func mutatedBodiesDecodeOrFailWithA4xx() {
        let cases = ProcessInfo.processInfo.environment["QUANTA_SERVER_FUZZ_CASES"].flatMap(Int.init) ?? 3000
        var rng = SplitMix64(seed: 0x5e12fe)
        let fragments = ["null", "true", "1e999", "-0", "\"\"", "[]", "{}", "[[[[", "\"\\ud800\"", "18446744073709551616", "{\"a\":"]
        for i in 0..<cases {
            var bytes = Array((i % 4 == 3 ? Self.completionSeed : Self.seeds[i % 3]).utf8)
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                let at = Int(rng.next() % UInt64(max(1, bytes.count)))
                switch rng.next() % 4 {
                case 0: if !bytes.isEmpty { bytes[at] = UInt8(truncatingIfNeeded: rng.next()) }
                case 1: bytes = Array(bytes.prefix(at))
                case 2: bytes.insert(contentsOf: Array(fragments[Int(rng.next() % UInt64(fragments.count))].utf8), at: min(at, bytes.count))
                default: if at < bytes.count { bytes.remove(at: at) }
                }
            }
            do {
                if i % 4 == 3 { _ = try CompletionRequest(body: bytes, defaults: .init()) } else { _ = try ChatRequest(body: bytes) }
            } catch {
                #expect((400..<500).contains(error.status), "case \(i): \(String(decoding: bytes, as: UTF8.self))")
                #expect(!error.message.isEmpty && !error.message.contains("\n"), "case \(i)")
            }
        }
    }

    /// The seeds themselves are valid requests, so the mutations start from accepted input.
    @Test func theSeedsDecode() throws {
        for seed in Self.seeds { _ = try ChatRequest(body: Array(seed.utf8)) }
        _ = try CompletionRequest(body: Array(Self.completionSeed.utf8), defaults: .init())
    }
}

