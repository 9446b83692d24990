#if canImport(Glibc)
import Glibc
#endif
import CommandLineSpec

/// The whole content of a text input (`perplexity --file`, `template --template`). A directory is
/// an error rather than empty text; pipes are fine (`--file <(...)`).
func readInputFile(_ path: String) throws(UsageError) -> [UInt8] {
    var st = stat()
    guard stat(path, &st) == 0 else { throw UsageError("cannot read \(path): \(String(cString: strerror(errno)))", isArgumentError: false) }
    guard (st.st_mode & S_IFMT) != S_IFDIR else { throw UsageError("cannot read \(path): it is a directory", isArgumentError: false) }
    guard let f = fopen(path, "rb") else {
        throw UsageError("cannot read \(path): \(String(cString: strerror(errno)))", isArgumentError: false)
    }
    defer { fclose(f) }
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&buffer, 1, buffer.count, f)
        if n == 0 { break }
        data.append(contentsOf: buffer[0..<n])
    }
    guard ferror(f) == 0 else { throw UsageError("cannot read \(path): read error", isArgumentError: false) }
    return data
}

/// A prompt file (`-f`) as llama.cpp reads one: the whole text with one trailing newline dropped.
func readPromptFile(_ path: String) throws(UsageError) -> String {
    var bytes = try readInputFile(path)
    if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
    return String(decoding: bytes, as: UTF8.self)
}
