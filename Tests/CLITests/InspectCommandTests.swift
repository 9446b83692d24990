import Foundation
import Testing

/// Runs the release `quanta` executable (or `program`, such as `bench`) that `make test` builds
/// alongside the tests. After `interruptAfter` seconds it gets SIGINT; after `timeout` seconds it
/// is killed (a hang fails the test instead of stalling the suite).
func runQuanta(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
               interruptAfter: Double? = nil, timeout: Double = 300, program: String = "quanta") throws
    -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "\(repositoryRoot)/.build/release/\(program)")
    process.arguments = arguments
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try process.run()
    if let interruptAfter {
        DispatchQueue.global().asyncAfter(deadline: .now() + interruptAfter) { [process] in
            if process.isRunning { kill(process.processIdentifier, SIGINT) }
        }
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [process] in
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}

let repositoryRoot = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")

@Suite struct InspectCommandTests {
    @Test(arguments: [("SmolLM2-135M-Instruct.Q4_1.gguf", "llama", 272), ("gemma-3-270m-q4_k_m.gguf", "gemma3", 236)])
    func inspectsRealModels(_ file: String, _ arch: String, _ tensors: Int) throws {
        let r = try runQuanta(["inspect", "\(repositoryRoot)/Models/\(file)", "--json"])
        #expect(r.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        #expect(json["architecture"] as? String == arch)
        #expect(json["tensor_count"] as? Int == tensors)
        #expect((json["tensors"] as? [Any])?.count == tensors)
        let text = try runQuanta(["inspect", "\(repositoryRoot)/Models/\(file)"])
        #expect(text.status == 0 && text.stdout.contains("architecture: \(arch)") && text.stdout.contains("totals: \(tensors) tensors"))
    }

    /// The file type by llama.cpp's name, not GGUF's enum value.
    @Test(arguments: [("SmolLM2-135M-Instruct.Q4_1.gguf", "Q4_1", 3), ("gemma-3-270m-q4_k_m.gguf", "Q4_K_M", 15)])
    func namesTheFileType(_ file: String, _ name: String, _ value: Int) throws {
        let text = try runQuanta(["inspect", "\(repositoryRoot)/Models/\(file)"])
        #expect(text.stdout.contains("\nfile type: \(name)\n"), "\(text.stdout.prefix(400))")
        #expect(text.stdout.contains("general.file_type = \(value) (\(name))\n"))
        let json = try JSONSerialization.jsonObject(with: Data(try runQuanta(["inspect", "\(repositoryRoot)/Models/\(file)", "--json"]).stdout.utf8))
            as? [String: Any]
        #expect(json?["file_type"] as? String == name)
        #expect((json?["metadata"] as? [String: Any])?["general.file_type"] as? Int == value)
    }

    @Test func badFilesGetOneLineErrors() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("quanta-inspect-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let empty = dir.appendingPathComponent("empty.gguf"), text = dir.appendingPathComponent("notes.gguf")
        try Data().write(to: empty)
        try Data("hello, this is not a model\n".utf8).write(to: text)
        // A valid header whose only tensor claims data past the end of the file.
        let model = try Data(contentsOf: URL(fileURLWithPath: "\(repositoryRoot)/Models/SmolLM2-135M-Instruct.Q4_1.gguf"))
        let cut = dir.appendingPathComponent("cut.gguf")
        try model.prefix(2_000_000).write(to: cut)
        let cases: [(String, String)] = [
            (dir.path, "not a regular file (a directory)"), (empty.path, "file ends early"), (text.path, "not a GGUF file"),
            (cut.path, "runs past the end of the file"), (dir.appendingPathComponent("missing").path, "No such file"),
        ]
        for (path, message) in cases {
            let r = try runQuanta(["inspect", path])
            #expect(r.status == 1, "\(path)")
            #expect(r.stderr.contains(message), "\(path): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1)
            #expect(r.stdout.isEmpty)
        }
    }
}
