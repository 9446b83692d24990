import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

let repositoryRoot = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
let smollm = "\(repositoryRoot)/Models/SmolLM2-135M-Instruct.Q4_1.gguf"

/// A `quanta serve` child process on 127.0.0.1 and a free port (the release build `make test`
/// makes). It is killed after `timeout` seconds, so a hang fails the test instead of the suite.
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    let port: Int
    private let stderrPipe = Pipe()
    private var stderrText = ""
    private let lock = NSLock()

    var baseURL: String { "http://127.0.0.1:\(port)" }

    init(_ arguments: [String], model: String = smollm, timeout: Double = 900) throws {
        process.executableURL = URL(fileURLWithPath: "\(repositoryRoot)/.build/release/quanta")
        process.arguments = ["serve", "-m", model, "--port", "0", "-t", "2"] + arguments
        process.standardError = stderrPipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [process] in
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        // The first line names the port the kernel chose.
        var text = ""
        let handle = stderrPipe.fileHandleForReading
        while !text.contains("\n") {
            let data = handle.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let range = text.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression),
              let port = Int(text[range].split(separator: ":").last!) else {
            throw ServerStartError(stderr: text)
        }
        self.port = port
        stderrText = text
        handle.readabilityHandler = { [weak self] h in
            let data = h.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.lock()
            self.stderrText += String(decoding: data, as: UTF8.self)
            self.lock.unlock()
        }
    }

    var stderr: String {
        lock.lock()
        defer { lock.unlock() }
        return stderrText
    }

    /// Sends SIGTERM and waits for the exit status.
    func terminate() -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        stderrPipe.fileHandleForReading.readabilityHandler = nil
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

struct ServerStartError: Error, CustomStringConvertible {
    var stderr: String
    var description: String { "quanta serve did not start: \(stderr)" }
}

/// Runs a program to the end (killed after `timeout` seconds) and returns its status and output.
@discardableResult
func run(_ program: String, _ arguments: [String], timeout: Double = 120) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [program] + arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [process] in
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
    // Read both pipes at once so neither fills while the other is drained.
    final class Box: @unchecked Sendable { var data = Data() }
    let errData = Box()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        errData.data = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData.data, as: UTF8.self))
}

/// One HTTP exchange with curl: the status and the body (headers too with `headers`).
func curl(_ url: String, method: String = "POST", body: String? = nil, headers: [String] = [], includeHeaders: Bool = false,
          timeout: Double = 120) throws -> (status: Int, body: String) {
    var args = ["-s", "-S", "-N", "-X", method, "-w", "\n%{http_code}", "--max-time", "\(Int(timeout))"]
    if includeHeaders { args.append("-i") }
    for h in headers { args += ["-H", h] }
    if let body { args += ["-H", "Content-Type: application/json", "--data-binary", body] }
    let r = try run("curl", args + [url], timeout: timeout + 10)
    let text = r.stdout
    guard let split = text.lastIndex(of: "\n"), let status = Int(text[text.index(after: split)...]) else {
        return (0, text + r.stderr)
    }
    return (status, String(text[..<split]))
}
