// A chat server `bench serve` measures, as a child process on 127.0.0.1: `quanta serve` or an
// external llama.cpp `llama-server` (never part of the repository; only a binary the user built).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Which program serves, and how it is told the same settings.
enum ServerKind: String, CaseIterable {
    case quanta, llamaServer = "llama-server"

    /// The command line for `model` with `slots` parallel requests of `context` tokens each.
    func arguments(model: String, port: Int, slots: Int, context: Int, threads: Int) -> [String] {
        switch self {
        case .quanta:
            return ["serve", "-m", model, "--host", "127.0.0.1", "--port", "\(port)", "-np", "\(slots)", "-c", "\(context)",
                    "-t", "\(threads)", "--queue", "64"]
        case .llamaServer:
            // llama-server's -c is the whole KV cache, shared by its slots; flash attention on as
            // ours always is; no web UI.
            return ["-m", model, "--host", "127.0.0.1", "--port", "\(port)", "-np", "\(slots)", "-c", "\(context * slots)",
                    "-t", "\(threads)", "-fa", "on", "--no-webui"]
        }
    }
}

/// A running server; `stop()` ends it (SIGTERM, then SIGKILL after 30 s).
final class ServerUnderTest {
    let kind: ServerKind
    let baseURL: URL
    private let process = Process()
    private let logPath: String

    /// Starts `executable` and waits until `GET /health` answers 200 (at most `startTimeout` s).
    init(kind: ServerKind, executable: String, model: String, slots: Int, context: Int, threads: Int,
         startTimeout: Double = 180) throws(ServeBenchError) {
        self.kind = kind
        let port = try freePort()
        baseURL = URL(string: "http://127.0.0.1:\(port)")!
        logPath = NSTemporaryDirectory() + "bench-serve-\(kind.rawValue)-\(getpid())-\(port).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = kind.arguments(model: model, port: port, slots: slots, context: context, threads: threads)
        process.standardOutput = FileHandle(forWritingAtPath: logPath)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        do { try process.run() } catch { throw ServeBenchError("\(executable): \(error.localizedDescription)") }
        let deadline = now() + startTimeout
        while httpStatus(baseURL.appendingPathComponent("health")) != 200 {
            guard process.isRunning else { throw ServeBenchError("\(kind.rawValue) exited while starting: \(logTail())") }
            guard now() < deadline else {
                stop()
                throw ServeBenchError("\(kind.rawValue) not healthy after \(Int(startTimeout)) s: \(logTail())")
            }
            usleep(100_000)
        }
    }

    var chatURL: URL { baseURL.appendingPathComponent("v1/chat/completions") }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let deadline = now() + 30
        while process.isRunning && now() < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: logPath)
    }

    /// The last lines the server wrote, for an error message.
    func logTail() -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(3).joined(separator: " | ")
    }
}

struct ServeBenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A TCP port on 127.0.0.1 nobody listens on now (the kernel's choice for port 0).
private func freePort() throws(ServeBenchError) -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw ServeBenchError("socket: errno \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw ServeBenchError("bind 127.0.0.1:0: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// The status of `GET url` (0 when nothing answers within a second).
private func httpStatus(_ url: URL) -> Int {
    final class Box: @unchecked Sendable { var status = 0 }
    let box = Box(), done = DispatchSemaphore(value: 0)
    var request = URLRequest(url: url)
    request.timeoutInterval = 1
    let task = URLSession.shared.dataTask(with: request) { _, response, _ in
        box.status = (response as? HTTPURLResponse)?.statusCode ?? 0
        done.signal()
    }
    task.resume()
    if done.wait(timeout: .now() + 2) == .timedOut { task.cancel() }
    return box.status
}
