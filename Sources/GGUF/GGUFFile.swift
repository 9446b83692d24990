/// One tensor in a GGUF file's directory.
public struct GGUFTensorInfo: Sendable, Equatable {
    public let name: String
    /// Extents, innermost (contiguous) first, as ggml's `ne`: a weight matrix is [K, N].
    public let shape: [Int]
    public let type: GGMLType
    /// Offset of the tensor's bytes from the start of the data section.
    public let offset: Int
    /// Bytes the tensor occupies.
    public let byteCount: Int
    /// Offset of the tensor's bytes from the start of the file.
    public let fileOffset: Int

    public var elementCount: Int { shape.reduce(1, *) }
    /// Elements per row (the contiguous dimension).
    public var rowLength: Int { shape[0] }
    /// Number of rows: the product of all extents but the first.
    public var rowCount: Int { shape.dropFirst().reduce(1, *) }
}

/// A parsed, validated GGUF file (versions 2 and 3) backed by a read-only memory mapping.
///
/// Parsing reads the header, all metadata and the tensor directory, and checks every count,
/// length, type, shape, offset and data range against the file size, so that anything that
/// reaches the caller is safe to use: `tensorData(_:)` never points outside the file.
public final class GGUFFile: @unchecked Sendable {
    /// Format version (2 or 3).
    public let version: UInt32
    /// Metadata keys in file order.
    public let metadataKeys: [String]
    /// All metadata, keyed by name.
    public let metadata: [String: GGUFValue]
    /// Tensors in file order.
    public let tensors: [GGUFTensorInfo]
    /// Alignment of tensor data (`general.alignment`, default 32).
    public let alignment: Int
    /// Offset of the data section from the start of the file.
    public let dataOffset: Int
    /// The whole file. Valid as long as this object lives.
    public let bytes: UnsafeRawBufferPointer

    private let owner: AnyObject
    private let tensorIndex: [String: Int]

    /// Maximum nesting of arrays inside arrays; real files use at most one level.
    static let maxArrayDepth = 4
    /// Longest tensor name accepted (ggml's GGML_MAX_NAME is 64 including the terminator).
    static let maxTensorNameBytes = 256

    /// Maps and parses the file at `path`.
    public convenience init(path: String) throws(GGUFError) {
        let mapped = try MappedFile(path: path)
        try self.init(bytes: mapped.bytes, owner: mapped)
    }

    /// Parses a GGUF image held in memory (copied; used by tests and tools).
    public convenience init(contents: [UInt8]) throws(GGUFError) {
        let storage = OwnedBytes(contents)
        try self.init(bytes: storage.bytes, owner: storage)
    }

    private init(bytes: UnsafeRawBufferPointer, owner: AnyObject) throws(GGUFError) {
        self.bytes = bytes
        self.owner = owner
        var r = ByteReader(bytes)

        let magic = try r.read(UInt32.self)
        guard magic == 0x4655_4747 else { throw .badMagic(found: magic) }   // "GGUF" little-endian
        version = try r.read(UInt32.self)
        guard version == 2 || version == 3 else { throw .unsupportedVersion(version) }
        // A tensor info is at least 8 (name) + 4 + 8 + 4 + 8 bytes; a key-value at least 8 + 4 + 1.
        let tensorCount = try r.readCount("tensor count", minElementBytes: 32)
        let kvCount = try r.readCount("metadata count", minElementBytes: 13)

        var keys: [String] = []
        var values: [String: GGUFValue] = [:]
        keys.reserveCapacity(kvCount)
        for _ in 0..<kvCount {
            let key = try r.readString("key length")
            let typeOffset = r.offset
            let rawType = try r.read(UInt32.self)
            guard let type = GGUFValueType(rawValue: rawType) else { throw .unknownValueType(rawType, offset: typeOffset) }
            let value = try Self.readValue(&r, type: type, depth: 0)
            guard values.updateValue(value, forKey: key) == nil else { throw .duplicateKey(key) }
            keys.append(key)
        }
        metadataKeys = keys
        metadata = values

        switch values["general.alignment"] {
        case nil: alignment = 32
        case let .uint32(a)?:
            guard a != 0, a & (a - 1) == 0 else { throw .badAlignment("\(a) is not a power of two") }
            alignment = Int(a)
        case let other?: throw .badAlignment("stored as \(other.type), not u32")
        }

        var infos: [(name: String, shape: [Int], type: GGMLType, offset: UInt64, bytes: UInt64)] = []
        var index: [String: Int] = [:]
        infos.reserveCapacity(tensorCount)
        for i in 0..<tensorCount {
            let nameOffset = r.offset
            let name = try r.readString("tensor name length")
            guard !name.isEmpty, name.utf8.count <= Self.maxTensorNameBytes, index[name] == nil else {
                throw .badTensorName(String(name.prefix(80)), offset: nameOffset)
            }
            index[name] = i
            let dimsOffset = r.offset
            let nDims = try r.read(UInt32.self)
            guard (1...4).contains(nDims) else {
                throw .implausibleCount(what: "dimension count of \(name)", value: UInt64(nDims), offset: dimsOffset)
            }
            let dims = try r.readArray(UInt64.self, count: Int(nDims))
            var elements: UInt64 = 1
            for d in dims {
                let (p, overflow) = elements.multipliedReportingOverflow(by: d)
                guard d > 0, !overflow, p <= UInt64(Int.max) else { throw .badShape(tensor: name, dims: dims) }
                elements = p
            }
            let typeID = try r.read(UInt32.self)
            guard let type = GGMLType(rawValue: typeID) else { throw .unknownTensorType(tensor: name, typeID: typeID) }
            guard dims[0] % UInt64(type.blockSize) == 0, let byteCount = type.byteCount(elements: elements) else {
                throw .rowNotBlockAligned(tensor: name, rowLength: dims[0], blockSize: type.blockSize)
            }
            let offset = try r.read(UInt64.self)
            guard offset % UInt64(alignment) == 0 else {
                throw .misalignedTensor(tensor: name, offset: offset, alignment: alignment)
            }
            infos.append((name, dims.map { Int($0) }, type, offset, byteCount))
        }
        r.align(to: alignment)
        // A file without tensors may end right after its metadata, without padding up to the
        // alignment (llama.cpp's vocab-only `ggml-vocab-*.gguf`; llama.cpp and the gguf package
        // read them): its data section is empty wherever it starts.
        dataOffset = infos.isEmpty ? min(r.offset, bytes.count) : r.offset
        guard dataOffset <= bytes.count else { throw .truncated(offset: bytes.count, needed: dataOffset - bytes.count, fileSize: bytes.count) }

        let dataStart = dataOffset, fileSize = bytes.count
        let available = UInt64(fileSize - dataStart)
        var checked: [GGUFTensorInfo] = []
        checked.reserveCapacity(infos.count)
        for info in infos {
            guard info.offset <= available, info.bytes <= available - info.offset else {
                throw .tensorOutOfBounds(tensor: info.name, start: UInt64(dataStart) &+ info.offset,
                                         length: info.bytes, fileSize: fileSize)
            }
            checked.append(GGUFTensorInfo(name: info.name, shape: info.shape, type: info.type, offset: Int(info.offset),
                                          byteCount: Int(info.bytes), fileOffset: dataStart + Int(info.offset)))
        }
        tensors = checked
        tensorIndex = index
    }

    private static func readValue(_ r: inout ByteReader, type: GGUFValueType, depth: Int) throws(GGUFError) -> GGUFValue {
        switch type {
        case .uint8: return .uint8(try r.read(UInt8.self))
        case .int8: return .int8(try r.read(Int8.self))
        case .uint16: return .uint16(try r.read(UInt16.self))
        case .int16: return .int16(try r.read(Int16.self))
        case .uint32: return .uint32(try r.read(UInt32.self))
        case .int32: return .int32(try r.read(Int32.self))
        case .uint64: return .uint64(try r.read(UInt64.self))
        case .int64: return .int64(try r.read(Int64.self))
        case .float32: return .float32(try r.readFloat())
        case .float64: return .float64(try r.readDouble())
        case .bool: return .bool(try r.read(UInt8.self) != 0)
        case .string: return .string(try r.readString())
        case .array: return .array(try readArray(&r, depth: depth + 1))
        }
    }

    private static func readArray(_ r: inout ByteReader, depth: Int) throws(GGUFError) -> GGUFArray {
        guard depth <= maxArrayDepth else { throw .nestingTooDeep(offset: r.offset) }
        let typeOffset = r.offset
        let rawType = try r.read(UInt32.self)
        guard let element = GGUFValueType(rawValue: rawType) else { throw .unknownValueType(rawType, offset: typeOffset) }
        // Strings and arrays take at least 8 and 12 bytes each; count is checked before allocating.
        let n = try r.readCount("array length", minElementBytes: element.fixedSize ?? (element == .string ? 8 : 12))
        switch element {
        case .uint8: return .uint8(try r.readArray(UInt8.self, count: n))
        case .int8: return .int8(try r.readArray(Int8.self, count: n))
        case .uint16: return .uint16(try r.readArray(UInt16.self, count: n))
        case .int16: return .int16(try r.readArray(Int16.self, count: n))
        case .uint32: return .uint32(try r.readArray(UInt32.self, count: n))
        case .int32: return .int32(try r.readArray(Int32.self, count: n))
        case .uint64: return .uint64(try r.readArray(UInt64.self, count: n))
        case .int64: return .int64(try r.readArray(Int64.self, count: n))
        case .float32: return .float32(try r.readArray(UInt32.self, count: n).map(Float.init(bitPattern:)))
        case .float64: return .float64(try r.readArray(UInt64.self, count: n).map(Double.init(bitPattern:)))
        case .bool: return .bool(try r.readArray(UInt8.self, count: n).map { $0 != 0 })
        case .string:
            var strings: [String] = []
            strings.reserveCapacity(n)
            for _ in 0..<n { strings.append(try r.readString()) }
            return .string(strings)
        case .array:
            var arrays: [GGUFArray] = []
            for _ in 0..<n { arrays.append(try readArray(&r, depth: depth + 1)) }
            return .array(arrays)
        }
    }

    // MARK: - Tensors

    /// The directory entry of the tensor called `name`, if present.
    public func tensor(named name: String) -> GGUFTensorInfo? { tensorIndex[name].map { tensors[$0] } }

    /// The directory entry of `name`, or `GGUFError.missingTensor`.
    public func requireTensor(_ name: String) throws(GGUFError) -> GGUFTensorInfo {
        guard let info = tensor(named: name) else { throw .missingTensor(name) }
        return info
    }

    /// Zero-copy view of a tensor's bytes (valid while this file object lives).
    public func tensorData(_ info: GGUFTensorInfo) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[info.fileOffset..<info.fileOffset + info.byteCount])
    }

    /// Copies `bytes` (offsets into the tensor's data, which they must lie within) into
    /// `destination`: with pread for a mapped file, so the pages are not mapped into the process
    /// (lookups of a few embedding rows per token), else from memory.
    public func copyTensorBytes(_ info: GGUFTensorInfo, bytes range: Range<Int>, into destination: UnsafeMutableRawPointer) {
        precondition(range.lowerBound >= 0 && range.upperBound <= info.byteCount, "range outside the tensor")
        let inFile = info.fileOffset + range.lowerBound..<info.fileOffset + range.upperBound
        if let mapped = owner as? MappedFile {
            mapped.read(inFile, into: destination)
        } else {
            destination.copyMemory(from: bytes.baseAddress! + inFile.lowerBound, byteCount: inFile.count)
        }
    }

    /// Drops the process's resident pages of the whole file when it is memory-mapped (after
    /// copying or repacking some of it into memory of one's own). Reads stay valid: the pages are
    /// mapped again from the page cache on access.
    public func releaseResidentPages() {
        (owner as? MappedFile)?.releaseResidentPages()
    }

    // MARK: - Metadata accessors

    /// The value of `key`, or `GGUFError.missingKey`.
    public func value(_ key: String) throws(GGUFError) -> GGUFValue {
        guard let v = metadata[key] else { throw .missingKey(key) }
        return v
    }

    /// A string value.
    public func string(_ key: String) throws(GGUFError) -> String {
        guard case let .string(s) = try value(key) else { throw mismatch(key, "string") }
        return s
    }

    /// Any integer type, converted to `Int` (GGUF writers disagree on u32 vs i32 vs u64).
    public func int(_ key: String) throws(GGUFError) -> Int {
        guard let v = try value(key).intValue else { throw mismatch(key, "integer") }
        return v
    }

    /// A uint32 value, exactly.
    public func uint32(_ key: String) throws(GGUFError) -> UInt32 {
        guard case let .uint32(v) = try value(key) else { throw mismatch(key, "u32") }
        return v
    }

    /// A float32 value (a float64 is narrowed).
    public func float32(_ key: String) throws(GGUFError) -> Float {
        switch try value(key) {
        case let .float32(v): return v
        case let .float64(v): return Float(v)
        default: throw mismatch(key, "f32")
        }
    }

    /// A bool value.
    public func bool(_ key: String) throws(GGUFError) -> Bool {
        guard case let .bool(v) = try value(key) else { throw mismatch(key, "bool") }
        return v
    }

    /// An array value.
    public func array(_ key: String) throws(GGUFError) -> GGUFArray {
        guard case let .array(a) = try value(key) else { throw mismatch(key, "array") }
        return a
    }

    /// A string-array value.
    public func strings(_ key: String) throws(GGUFError) -> [String] {
        guard case let .string(a) = try array(key) else { throw mismatch(key, "array of str") }
        return a
    }

    /// `general.architecture`.
    public var architecture: String? { try? string("general.architecture") }

    private func mismatch(_ key: String, _ expected: String) -> GGUFError {
        let found = metadata[key].map { v -> String in
            if case let .array(a) = v { return "array of \(a.elementType)" }
            return v.type.description
        } ?? "nothing"
        return .typeMismatch(key: key, expected: expected, found: found)
    }
}

/// Heap copy of a GGUF image for `GGUFFile(contents:)`.
private final class OwnedBytes {
    let bytes: UnsafeRawBufferPointer
    init(_ contents: [UInt8]) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(contents.count, 1), alignment: 64)
        buffer.copyBytes(from: contents)
        bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<contents.count])
    }
    deinit { bytes.baseAddress.map { UnsafeMutableRawPointer(mutating: $0).deallocate() } }
}
