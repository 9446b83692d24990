#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Builds a GGUF (v3) file: metadata in insertion order, tensors laid out at the alignment.
/// Small files (tests' synthetic models) are built in memory with `addTensor` and `serialize()`;
/// large ones are streamed with `declareTensor` and `write(to:fill:)`, which writes the header and
/// every tensor's info first (sizes and offsets follow from shapes and types) and then each
/// tensor's bytes as they are produced, so only one tensor is in memory at a time.
public struct GGUFWriter: Sendable {
    public let alignment: Int
    private var metadata: [(String, GGUFValue)] = []
    /// `data` is nil for a declared tensor, whose bytes `write(to:fill:)` asks for.
    private var tensors: [(name: String, shape: [Int], type: GGMLType, byteCount: Int, data: [UInt8]?)] = []

    public init(alignment: Int = 32) {
        precondition(alignment > 0 && alignment & (alignment - 1) == 0, "alignment must be a power of two")
        self.alignment = alignment
        if alignment != 32 { metadata.append(("general.alignment", .uint32(UInt32(alignment)))) }
    }

    /// Appends a metadata key-value pair.
    public mutating func set(_ key: String, _ value: GGUFValue) {
        metadata.append((key, value))
    }

    /// Appends a tensor. `shape` is innermost-first (ggml `ne`); `data` must be exactly the
    /// tensor's byte count for `type`.
    public mutating func addTensor(_ name: String, shape: [Int], type: GGMLType, data: [UInt8]) {
        let count = Self.byteCount(name, shape: shape, type: type)
        precondition(count == data.count, "tensor \(name): data size mismatch")
        tensors.append((name, shape, type, count, data))
    }

    /// Appends an F32 tensor.
    public mutating func addTensor(_ name: String, shape: [Int], floats: [Float]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(floats.count * 4)
        for f in floats { bytes.append(contentsOf: littleEndian(f.bitPattern)) }
        addTensor(name, shape: shape, type: .f32, data: bytes)
    }

    /// Appends a tensor whose bytes are produced while writing (`write(to:fill:)`). Returns its
    /// byte count.
    @discardableResult
    public mutating func declareTensor(_ name: String, shape: [Int], type: GGMLType) -> Int {
        let count = Self.byteCount(name, shape: shape, type: type)
        tensors.append((name, shape, type, count, nil))
        return count
    }

    /// The serialized file. Every tensor must have been given its bytes (`addTensor`).
    public func serialize() -> [UInt8] {
        var out = header()
        for t in tensors {
            guard let data = t.data else { preconditionFailure("tensor \(t.name) was declared without data; use write(to:fill:)") }
            out += data
            out += [UInt8](repeating: 0, count: padded(data.count) - data.count)
        }
        return out
    }

    /// Writes the file to `path` (created or truncated), one tensor at a time: a declared tensor's
    /// bytes are asked of `fill` (tensor name, a buffer of exactly its byte count, contents
    /// undefined until filled) in declaration order, written, and the buffer dropped before the
    /// next. The bytes equal `serialize()`'s for the same tensors. Throws when the file cannot be
    /// created or written (one line naming the path), or what `fill` throws.
    public func write(to path: String, fill: (_ name: String, _ bytes: UnsafeMutableRawBufferPointer) throws -> Void) throws {
        guard let stream = fopen(path, "wb") else { throw GGUFWriteError(path: path, reason: String(cString: strerror(errno))) }
        var closed = false
        defer { if !closed { fclose(stream) } }
        func put(_ bytes: UnsafeRawBufferPointer) throws {
            guard bytes.count == 0 || fwrite(bytes.baseAddress, 1, bytes.count, stream) == bytes.count else {
                throw GGUFWriteError(path: path, reason: String(cString: strerror(errno)))
            }
        }
        try header().withUnsafeBytes { try put($0) }
        let zeros = [UInt8](repeating: 0, count: alignment)
        for t in tensors {
            if let data = t.data {
                try data.withUnsafeBytes { try put($0) }
            } else {
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: t.byteCount, alignment: 64)
                defer { buffer.deallocate() }
                try fill(t.name, buffer)
                try put(UnsafeRawBufferPointer(buffer))
            }
            try zeros.withUnsafeBytes { try put(UnsafeRawBufferPointer(rebasing: $0[..<(padded(t.byteCount) - t.byteCount)])) }
        }
        closed = true
        guard fclose(stream) == 0 else { throw GGUFWriteError(path: path, reason: String(cString: strerror(errno))) }
    }

    /// Magic, version, counts, metadata and tensor infos, padded to the alignment: everything
    /// before the first tensor's bytes.
    private func header() -> [UInt8] {
        var out: [UInt8] = []
        out += littleEndian(UInt32(0x4655_4747))
        out += littleEndian(UInt32(3))
        out += littleEndian(UInt64(tensors.count))
        out += littleEndian(UInt64(metadata.count))
        for (key, value) in metadata {
            writeString(key, into: &out)
            out += littleEndian(value.type.rawValue)
            writeValue(value, into: &out)
        }
        var offset = 0
        for t in tensors {
            writeString(t.name, into: &out)
            out += littleEndian(UInt32(t.shape.count))
            for d in t.shape { out += littleEndian(UInt64(d)) }
            out += littleEndian(t.type.rawValue)
            out += littleEndian(UInt64(offset))
            offset = padded(offset + t.byteCount)
        }
        out += [UInt8](repeating: 0, count: padded(out.count) - out.count)
        return out
    }

    private static func byteCount(_ name: String, shape: [Int], type: GGMLType) -> Int {
        let elements = UInt64(shape.reduce(1, *))
        guard let count = type.byteCount(elements: elements) else {
            preconditionFailure("tensor \(name): shape \(shape) is not a whole number of \(type) blocks")
        }
        return Int(count)
    }

    private func padded(_ n: Int) -> Int { (n + alignment - 1) / alignment * alignment }

    private func writeString(_ s: String, into out: inout [UInt8]) {
        out += littleEndian(UInt64(s.utf8.count))
        out += Array(s.utf8)
    }

    private func writeValue(_ value: GGUFValue, into out: inout [UInt8]) {
        switch value {
        case let .uint8(v): out.append(v)
        case let .int8(v): out.append(UInt8(bitPattern: v))
        case let .uint16(v): out += littleEndian(v)
        case let .int16(v): out += littleEndian(v)
        case let .uint32(v): out += littleEndian(v)
        case let .int32(v): out += littleEndian(v)
        case let .uint64(v): out += littleEndian(v)
        case let .int64(v): out += littleEndian(v)
        case let .float32(v): out += littleEndian(v.bitPattern)
        case let .float64(v): out += littleEndian(v.bitPattern)
        case let .bool(v): out.append(v ? 1 : 0)
        case let .string(s): writeString(s, into: &out)
        case let .array(a): writeArray(a, into: &out)
        }
    }

    private func writeArray(_ array: GGUFArray, into out: inout [UInt8]) {
        out += littleEndian(array.elementType.rawValue)
        out += littleEndian(UInt64(array.count))
        switch array {
        case let .uint8(a): out += a
        case let .int8(a): out += a.map { UInt8(bitPattern: $0) }
        case let .uint16(a): for v in a { out += littleEndian(v) }
        case let .int16(a): for v in a { out += littleEndian(v) }
        case let .uint32(a): for v in a { out += littleEndian(v) }
        case let .int32(a): for v in a { out += littleEndian(v) }
        case let .uint64(a): for v in a { out += littleEndian(v) }
        case let .int64(a): for v in a { out += littleEndian(v) }
        case let .float32(a): for v in a { out += littleEndian(v.bitPattern) }
        case let .float64(a): for v in a { out += littleEndian(v.bitPattern) }
        case let .bool(a): out += a.map { $0 ? 1 : 0 }
        case let .string(a): for s in a { writeString(s, into: &out) }
        case let .array(a): for inner in a { writeArray(inner, into: &out) }
        }
    }
}

/// The little-endian bytes of an integer.
func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}

/// A GGUF file could not be created or written.
public struct GGUFWriteError: Error, CustomStringConvertible {
    public let path: String, reason: String
    public var description: String { "cannot write \(path): \(reason)" }
}
