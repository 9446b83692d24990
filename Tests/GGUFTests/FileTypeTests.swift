import Foundation
import Testing
@testable import GGUF

/// What the reader says about paths that are not GGUF files, and about files cut short.
@Suite struct FileTypeTests {
    @Test func aNamedPipeIsRejectedBeforeOpening() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gguf-fifo-\(getpid())").path
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        // Opening it for reading would block until a writer appears; the error must come first.
        #expect(throws: GGUFError.cannotOpen(path: path, reason: "not a regular file (a named pipe)")) { try GGUFFile(path: path) }
    }

    @Test func aDirectoryAndADeviceAreNamed() {
        let dir = FileManager.default.temporaryDirectory.path
        #expect(throws: GGUFError.cannotOpen(path: dir, reason: "not a regular file (a directory)")) { try GGUFFile(path: dir) }
        #expect(throws: GGUFError.cannotOpen(path: "/dev/null", reason: "not a regular file (a device)")) { try GGUFFile(path: "/dev/null") }
    }

    /// A cut in the middle of a counted run (tensor directory, a string array) reports the file
    /// ending early, with the bytes still needed and the file size; a wild count stays implausible.
    @Test func aCountPastTheEndIsATruncationUnlessItIsWild() throws {
        var w = GGUFWriter()
        w.set("tokens", .array(.string((0..<1000).map { "token\($0)" })))
        let bytes = w.serialize()
        let cut = Array(bytes.prefix(200))
        #expect {
            try GGUFFile(contents: cut)
        } throws: { error in
            guard case let .truncated(_, needed, size)? = error as? GGUFError else { return false }
            return size == 200 && needed >= 8000 && "\(error)".hasPrefix("file ends early (truncated)")
        }
        var wild = bytes
        // The tensor count (bytes 8..<16) set to 2^62.
        for i in 8..<16 { wild[i] = i == 15 ? 0x40 : 0 }
        #expect(throws: GGUFError.implausibleCount(what: "tensor count", value: 1 << 62, offset: 8)) { try GGUFFile(contents: wild) }
    }
}
