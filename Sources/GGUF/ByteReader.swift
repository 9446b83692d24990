/// A bounds-checked little-endian cursor over the header part of a GGUF file. Every read checks
/// the remaining length first and throws `GGUFError.truncated` with the offset; nothing is read
/// from outside `bytes`.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func need(_ n: Int) throws(GGUFError) {
        guard n >= 0, n <= remaining else { throw .truncated(offset: offset, needed: n, fileSize: bytes.count) }
    }

    mutating func read<T: FixedWidthInteger>(_: T.Type) throws(GGUFError) -> T {
        try need(MemoryLayout<T>.size)
        let value = bytes.loadUnaligned(fromByteOffset: offset, as: T.self)
        offset += MemoryLayout<T>.size
        return T(littleEndian: value)
    }

    mutating func readFloat() throws(GGUFError) -> Float { Float(bitPattern: try read(UInt32.self)) }
    mutating func readDouble() throws(GGUFError) -> Double { Double(bitPattern: try read(UInt64.self)) }

    /// Items a count may announce and still be taken for a file that ends early rather than a
    /// corrupt count: 2^40 bytes of items is more than any model, and a random u64 is far larger.
    static let plausibleItemBytes: UInt64 = 1 << 40

    /// A count that precedes `minElementBytes`-sized items: rejected before anything is
    /// allocated if that many items could not fit in the rest of the file. A count that would fit
    /// in a plausible file is reported as the file ending early (a download cut short), anything
    /// larger as an implausible count (corruption).
    mutating func readCount(_ what: String, minElementBytes: Int) throws(GGUFError) -> Int {
        let at = offset
        let n = try read(UInt64.self)
        let size = UInt64(max(minElementBytes, 1))
        guard n <= UInt64(remaining) / size else {
            let (itemBytes, overflow) = n.multipliedReportingOverflow(by: size)
            guard !overflow, itemBytes <= Self.plausibleItemBytes else {
                throw .implausibleCount(what: what, value: n, offset: at)
            }
            throw .truncated(offset: offset, needed: Int(itemBytes), fileSize: bytes.count)
        }
        return Int(n)
    }

    /// A GGUF string: u64 byte length, then UTF-8 bytes (invalid sequences are replaced).
    mutating func readString(_ what: String = "string length") throws(GGUFError) -> String {
        let n = try readCount(what, minElementBytes: 1)
        let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + n])
        offset += n
        return String(decoding: slice, as: UTF8.self)
    }

    /// Fixed-size elements copied out in one pass.
    mutating func readArray<T: FixedWidthInteger>(_: T.Type, count: Int) throws(GGUFError) -> [T] {
        try need(count * MemoryLayout<T>.size)
        let start = offset
        offset += count * MemoryLayout<T>.size
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            for i in 0..<count {
                buffer[i] = T(littleEndian: bytes.loadUnaligned(fromByteOffset: start + i * MemoryLayout<T>.size, as: T.self))
            }
            initialized = count
        }
    }

    mutating func align(to alignment: Int) {
        let rem = offset % alignment
        if rem != 0 { offset += alignment - rem }
    }
}
