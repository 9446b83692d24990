import Foundation
import Testing

/// The FM27 example app (`Examples/FM27App`, built as `fm27-example` alongside the tests), run
/// the way a user runs it: the system model is whatever `QUANTA_MODEL` names.
///
/// Time cap: 30 s for the suite on an idle 2-core machine (three guided requests, one tool round
/// and one stream on SmolLM2 take about 10 s of CPU); a run is killed after 120 s, so a hang
/// fails the test instead of stalling the suite.
@Suite(.serialized) struct FM27ExampleTests {
    static let smollm = "\(repositoryRoot)/Models/SmolLM2-135M-Instruct.Q4_1.gguf"

    /// Runs `fm27-example` with `QUANTA_MODEL` set to `model`.
    /// `exited` is false when a signal ended it (a crash, or the kill after 120 s).
    static func run(_ arguments: [String], model: String) throws
        -> (status: Int32, exited: Bool, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "\(repositoryRoot)/.build/release/fm27-example")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["QUANTA_MODEL": model]) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) { [process] in
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason == .exit,
                String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    /// Three requests on SmolLM2: every answer keeps the plan's guides, as the driver checks
    /// them itself, and so do the tool round and the stream.
    @Test func threeAnswersOnSmolLM2AreValid() throws {
        let r = try Self.run(["3"], model: Self.smollm)
        #expect(r.exited && r.status == 0, "\(r.stdout)\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.last == "valid: 3/3", "\(r.stdout)")
        #expect(lines.filter { $0.hasPrefix("#") }.count == 3, "\(r.stdout)")
        #expect(lines.contains { $0.hasPrefix("tool: ok checkTrailConditions(") }, "\(r.stdout)")
        #expect(lines.contains { $0.hasPrefix("stream: ok ") }, "\(r.stdout)")
    }

    /// No model file: one line saying the model is unavailable, no answers, exit status 1 (and
    /// no crash, which would end the process by a signal).
    @Test func aMissingModelIsReportedInOneLine() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("fm27-example-\(getpid())-missing.gguf").path
        let r = try Self.run(["3"], model: missing)
        #expect(r.exited && r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.isEmpty, "\(r.stdout)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(r.stderr)")
        #expect(lines.first?.contains("unavailable (modelNotReady)") == true, "\(r.stderr)")
    }
}
