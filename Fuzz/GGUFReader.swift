// libFuzzer target: arbitrary bytes as a GGUF image. Parsing must throw GGUFError or succeed;
// on success every tensor's bytes and every metadata accessor are touched, so a view outside
// the image would be caught by AddressSanitizer.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGGUF(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let file = try? GGUFFile(contents: Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    var sum = 0
    for t in file.tensors {
        let bytes = file.tensorData(t)
        if let first = bytes.first, let last = bytes.last { sum &+= Int(first) &+ Int(last) }
        _ = file.tensor(named: t.name)
    }
    for key in file.metadataKeys {
        _ = try? file.string(key)
        _ = try? file.int(key)
        _ = try? file.float32(key)
        _ = try? file.strings(key)
    }
    _ = file.architecture
    return sum == Int.min ? 1 : 0
}
