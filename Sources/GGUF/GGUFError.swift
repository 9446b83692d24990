/// Why a GGUF file could not be read. Every case names where the problem is: a byte offset into
/// the file, a metadata key or a tensor name.
public enum GGUFError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The path could not be opened or mapped (missing, a directory, unreadable).
    case cannotOpen(path: String, reason: String)
    /// The file (`fileSize` bytes) ends before a value that starts at `offset` and needs at least
    /// `needed` bytes: typically a download or copy cut short.
    case truncated(offset: Int, needed: Int, fileSize: Int)
    /// The first four bytes are not "GGUF".
    case badMagic(found: UInt32)
    /// A version other than 2 or 3.
    case unsupportedVersion(UInt32)
    /// A count or length at `offset` is larger than the file could possibly hold.
    case implausibleCount(what: String, value: UInt64, offset: Int)
    /// A metadata value type id that GGUF does not define.
    case unknownValueType(UInt32, offset: Int)
    /// Arrays nested deeper than the reader allows.
    case nestingTooDeep(offset: Int)
    /// The same metadata key appears twice.
    case duplicateKey(String)
    /// `general.alignment` is not a non-zero power of two stored as uint32.
    case badAlignment(String)
    /// A tensor name that is empty, too long, or repeated.
    case badTensorName(String, offset: Int)
    /// A tensor with no dimensions, more than four, or a zero or overflowing extent.
    case badShape(tensor: String, dims: [UInt64])
    /// A tensor type id this reader does not know.
    case unknownTensorType(tensor: String, typeID: UInt32)
    /// The first dimension is not a whole number of quantization blocks.
    case rowNotBlockAligned(tensor: String, rowLength: UInt64, blockSize: Int)
    /// A tensor offset that is not a multiple of the file's alignment.
    case misalignedTensor(tensor: String, offset: UInt64, alignment: Int)
    /// A tensor's bytes run past the end of the file.
    case tensorOutOfBounds(tensor: String, start: UInt64, length: UInt64, fileSize: Int)
    /// A metadata key the caller needs is absent.
    case missingKey(String)
    /// A metadata key holds a different type than the caller asked for.
    case typeMismatch(key: String, expected: String, found: String)
    /// A tensor the caller needs is absent.
    case missingTensor(String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): return "cannot open \(path): \(reason)"
        case let .truncated(offset, needed, size):
            return "file ends early (truncated): \(needed) bytes needed at offset \(offset), but the file has \(size) bytes"
        case let .badMagic(found): return "not a GGUF file (magic 0x\(String(found, radix: 16)))"
        case let .unsupportedVersion(v): return "unsupported GGUF version \(v) (2 and 3 are supported)"
        case let .implausibleCount(what, value, offset): return "implausible \(what) \(value) at offset \(offset)"
        case let .unknownValueType(t, offset): return "unknown metadata value type \(t) at offset \(offset)"
        case let .nestingTooDeep(offset): return "metadata arrays nested too deeply at offset \(offset)"
        case let .duplicateKey(key): return "duplicate metadata key \(key)"
        case let .badAlignment(why): return "bad general.alignment: \(why)"
        case let .badTensorName(name, offset): return "bad tensor name \"\(name)\" at offset \(offset)"
        case let .badShape(tensor, dims): return "tensor \(tensor): bad shape \(dims)"
        case let .unknownTensorType(tensor, id): return "tensor \(tensor): unknown type id \(id)"
        case let .rowNotBlockAligned(tensor, n, bs): return "tensor \(tensor): row length \(n) is not a multiple of block size \(bs)"
        case let .misalignedTensor(tensor, offset, a): return "tensor \(tensor): offset \(offset) is not a multiple of alignment \(a)"
        case let .tensorOutOfBounds(tensor, start, length, size):
            // A range a real file could reach means the file was cut short; a wild one, corruption.
            let cutShort = start.addingReportingOverflow(length).partialValue <= 1 << 40 && start < 1 << 40
            return (cutShort ? "file ends early (truncated): " : "")
                + "tensor \(tensor): data [\(start), +\(length)) runs past the end of the file (\(size) bytes)"
        case let .missingKey(key): return "missing metadata key \(key)"
        case let .typeMismatch(key, expected, found): return "metadata key \(key): expected \(expected), found \(found)"
        case let .missingTensor(name): return "missing tensor \(name)"
        }
    }
}
