/// Builds a GGUF (v3) image in memory: metadata in insertion order, tensors laid out at the
/// alignment. Used by tests to write small synthetic models and by tools that convert weights.
public struct GGUFWriter: Sendable {
    public let alignment: Int
    private var metadata: [(String, GGUFValue)] = []
    private var tensors: [(name: String, shape: [Int], type: GGMLType, data: [UInt8])] = []

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
        let elements = UInt64(shape.reduce(1, *))
        precondition(type.byteCount(elements: elements) == UInt64(data.count), "tensor \(name): data size mismatch")
        tensors.append((name, shape, type, data))
    }

    /// Appends an F32 tensor.
    public mutating func addTensor(_ name: String, shape: [Int], floats: [Float]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(floats.count * 4)
        for f in floats { bytes.append(contentsOf: littleEndian(f.bitPattern)) }
        addTensor(name, shape: shape, type: .f32, data: bytes)
    }

    /// The serialized file.
    public func serialize() -> [UInt8] {
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
        var offsets: [Int] = []
        for t in tensors {
            offsets.append(offset)
            offset = padded(offset + t.data.count)
        }
        for (t, off) in zip(tensors, offsets) {
            writeString(t.name, into: &out)
            out += littleEndian(UInt32(t.shape.count))
            for d in t.shape { out += littleEndian(UInt64(d)) }
            out += littleEndian(t.type.rawValue)
            out += littleEndian(UInt64(off))
        }
        out += [UInt8](repeating: 0, count: padded(out.count) - out.count)
        for t in tensors {
            out += t.data
            out += [UInt8](repeating: 0, count: padded(t.data.count) - t.data.count)
        }
        return out
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
