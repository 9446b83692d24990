// The plugin process: reads framed requests from the compiler on stdin, answers each on stdout,
// and exits when stdin closes. See PluginMessages.swift for the framing.
import JSON
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The protocol version answered to `getCapability` (7: attached and freestanding expansion with
/// lexical context; the only fields read are in PluginMessages.swift).
let protocolVersion = 7

/// The largest message accepted; a longer one ends the plugin (the compiler never sends one).
let maximumMessageBytes = 1 << 30

/// Reads exactly `count` bytes from stdin; nil at end of input.
func readBytes(_ count: Int) -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
        let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress! + filled, count - filled) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return nil }
        filled += n
    }
    return buffer
}

/// Writes a length-prefixed JSON reply to stdout.
func send(_ reply: PluginReply) {
    let body = Array(((try? JSONValueEncoder().text(of: reply)) ?? "").utf8)
    var frame = withUnsafeBytes(of: UInt64(body.count).littleEndian) { [UInt8]($0) }
    frame.append(contentsOf: body)
    var written = 0
    while written < frame.count {
        let n = frame.withUnsafeBytes { write(1, $0.baseAddress! + written, frame.count - written) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { exit(1) }
        written += n
    }
}

while let header = readBytes(8) {
    let length = header.withUnsafeBytes { Int(UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self))) }
    guard length >= 0, length <= maximumMessageBytes, let body = readBytes(length) else { break }
    guard let message = try? JSONValueDecoder().decode(HostMessage.self, from: String(decoding: body, as: UTF8.self)) else {
        send(.expansion(source: nil, diagnostics: []))
        continue
    }
    if message.getCapability != nil {
        send(.capability(protocolVersion: protocolVersion))
    } else if let request = message.expandAttachedMacro {
        let result = MacroRequest(request).expand()
        send(.expansion(source: result.source, diagnostics: result.diagnostics))
    } else if message.loadPluginLibrary != nil {
        send(.libraryNotLoaded)
    } else {
        send(.expansion(source: nil, diagnostics: []))
    }
}
