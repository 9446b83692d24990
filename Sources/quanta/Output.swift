import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes to stderr with write(2): unbuffered, and free of the C `stderr` global that Swift 6
/// treats as shared mutable state.
func printError(_ text: String) {
    var text = text
    text.withUTF8 { buffer in _ = write(2, buffer.baseAddress, buffer.count) }
}

/// Prints a one-line error to stderr and returns exit code 1.
func fail(_ message: String) -> Int32 {
    printError("quanta: error: \(message)\n")
    return 1
}

/// printf-style formatting (`%10.6f`, `%4d`), for tables that copy llama.cpp's layout.
func formatted(_ format: String, _ arguments: any CVarArg...) -> String {
    String(format: format, arguments: arguments)
}
