// Runs the QuantaMacros plugin executable and talks to it the way the compiler does: 8-byte
// little-endian length, then JSON, each way.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One plugin process.
final class PluginProcess {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    /// The plugin built next to the tests (release or debug, whichever is newer).
    static var executable: URL? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = ["release", "debug"].map { root.appendingPathComponent(".build/\($0)/QuantaMacros-tool") }
        let dated = candidates.compactMap { url -> (URL, Date)? in
            guard let date = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date else { return nil }
            return (url, date)
        }
        return dated.max { $0.1 < $1.1 }?.0
    }

    init() throws {
        guard let executable = Self.executable else { throw PluginError("the QuantaMacros plugin is not built") }
        process.executableURL = executable
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    struct PluginError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Sends `message` (a JSON object) and returns the reply, failing if none arrives whole
    /// within `timeout` seconds.
    func exchange(_ message: [String: Any], timeout: Double = 1) throws -> [String: Any] {
        let body = try JSONSerialization.data(withJSONObject: message)
        var frame = withUnsafeBytes(of: UInt64(body.count).littleEndian) { Data($0) }
        frame.append(body)
        try input.fileHandleForWriting.write(contentsOf: frame)
        let deadline = Date().addingTimeInterval(timeout)
        let header = try read(8, before: deadline)
        let length = header.withUnsafeBytes { Int(UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self))) }
        let reply = try read(length, before: deadline)
        guard let object = try JSONSerialization.jsonObject(with: reply) as? [String: Any] else { throw PluginError("reply is not an object") }
        return object
    }

    private func read(_ count: Int, before deadline: Date) throws -> Data {
        let fd = output.fileHandleForReading.fileDescriptor
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while data.count < count {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw PluginError("no reply within the time limit") }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(left * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let n = Glibc.read(fd, &buffer, min(buffer.count, count - data.count))
            guard n > 0 else { throw PluginError("the plugin closed its output (exit status \(process.isRunning ? -1 : process.terminationStatus))") }
            data.append(contentsOf: buffer[0..<n])
        }
        return data
    }

    /// Asks the plugin to expand macro `typeName` in `role` on `declaration`, whose attribute
    /// text is `attribute`; returns the expansion and diagnostics.
    func expand(typeName: String, role: String, attribute: String, declaration: String, extendedType: String = "T",
                timeout: Double = 1) throws -> (source: String?, diagnostics: [[String: Any]]) {
        func syntax(_ source: String, kind: String) -> [String: Any] {
            ["kind": kind, "source": source,
             "location": ["fileID": "App/main.swift", "fileName": "/app/main.swift", "offset": 0, "line": 1, "column": 1]]
        }
        var request: [String: Any] = [
            "macro": ["moduleName": "QuantaMacros", "typeName": typeName, "name": typeName],
            "macroRole": role,
            "discriminator": "$s1",
            "attributeSyntax": syntax(attribute, kind: "attribute"),
            "declSyntax": syntax(declaration, kind: "declaration"),
        ]
        if role == "extension" {
            request["extendedTypeSyntax"] = syntax(extendedType, kind: "type")
            request["conformanceListSyntax"] = syntax("Generable", kind: "type")
        }
        let reply = try exchange(["expandAttachedMacro": request], timeout: timeout)
        guard let result = reply["expandMacroResult"] as? [String: Any] else { throw PluginError("unexpected reply \(reply.keys)") }
        return (result["expandedSource"] as? String, result["diagnostics"] as? [[String: Any]] ?? [])
    }
}
