/// The metadata value type ids of the GGUF format.
public enum GGUFValueType: UInt32, Sendable, CustomStringConvertible {
    case uint8 = 0, int8 = 1, uint16 = 2, int16 = 3, uint32 = 4, int32 = 5, float32 = 6, bool = 7
    case string = 8, array = 9, uint64 = 10, int64 = 11, float64 = 12

    /// Bytes one value occupies on disk, or nil for the variable-length string and array.
    var fixedSize: Int? {
        switch self {
        case .uint8, .int8, .bool: return 1
        case .uint16, .int16: return 2
        case .uint32, .int32, .float32: return 4
        case .uint64, .int64, .float64: return 8
        case .string, .array: return nil
        }
    }

    public var description: String {
        switch self {
        case .uint8: return "u8"
        case .int8: return "i8"
        case .uint16: return "u16"
        case .int16: return "i16"
        case .uint32: return "u32"
        case .int32: return "i32"
        case .float32: return "f32"
        case .bool: return "bool"
        case .string: return "str"
        case .array: return "arr"
        case .uint64: return "u64"
        case .int64: return "i64"
        case .float64: return "f64"
        }
    }
}

/// One metadata value. Arrays keep their element type so that a 262k-entry token list is one
/// `[String]`, not 262k boxed values.
public enum GGUFValue: Sendable, Equatable {
    case uint8(UInt8), int8(Int8), uint16(UInt16), int16(Int16), uint32(UInt32), int32(Int32)
    case uint64(UInt64), int64(Int64), float32(Float), float64(Double), bool(Bool), string(String)
    case array(GGUFArray)

    public var type: GGUFValueType {
        switch self {
        case .uint8: return .uint8
        case .int8: return .int8
        case .uint16: return .uint16
        case .int16: return .int16
        case .uint32: return .uint32
        case .int32: return .int32
        case .uint64: return .uint64
        case .int64: return .int64
        case .float32: return .float32
        case .float64: return .float64
        case .bool: return .bool
        case .string: return .string
        case .array: return .array
        }
    }

    /// The value as an integer if it is any integer type and fits in `Int`.
    public var intValue: Int? {
        switch self {
        case let .uint8(v): return Int(v)
        case let .int8(v): return Int(v)
        case let .uint16(v): return Int(v)
        case let .int16(v): return Int(v)
        case let .uint32(v): return Int(v)
        case let .int32(v): return Int(v)
        case let .uint64(v): return Int(exactly: v)
        case let .int64(v): return Int(v)
        default: return nil
        }
    }

    /// The value as a float if it is a float type (or an integer, converted).
    public var doubleValue: Double? {
        switch self {
        case let .float32(v): return Double(v)
        case let .float64(v): return v
        default: return intValue.map(Double.init)
        }
    }
}

/// A homogeneous metadata array.
public enum GGUFArray: Sendable, Equatable {
    case uint8([UInt8]), int8([Int8]), uint16([UInt16]), int16([Int16]), uint32([UInt32]), int32([Int32])
    case uint64([UInt64]), int64([Int64]), float32([Float]), float64([Double]), bool([Bool]), string([String])
    /// An array of arrays (each may have its own element type).
    case array([GGUFArray])

    public var elementType: GGUFValueType {
        switch self {
        case .uint8: return .uint8
        case .int8: return .int8
        case .uint16: return .uint16
        case .int16: return .int16
        case .uint32: return .uint32
        case .int32: return .int32
        case .uint64: return .uint64
        case .int64: return .int64
        case .float32: return .float32
        case .float64: return .float64
        case .bool: return .bool
        case .string: return .string
        case .array: return .array
        }
    }

    public var count: Int {
        switch self {
        case let .uint8(a): return a.count
        case let .int8(a): return a.count
        case let .uint16(a): return a.count
        case let .int16(a): return a.count
        case let .uint32(a): return a.count
        case let .int32(a): return a.count
        case let .uint64(a): return a.count
        case let .int64(a): return a.count
        case let .float32(a): return a.count
        case let .float64(a): return a.count
        case let .bool(a): return a.count
        case let .string(a): return a.count
        case let .array(a): return a.count
        }
    }

    /// Integer elements as `[Int]`, if the element type is an integer type.
    public var intValues: [Int]? {
        switch self {
        case let .uint8(a): return a.map(Int.init)
        case let .int8(a): return a.map(Int.init)
        case let .uint16(a): return a.map(Int.init)
        case let .int16(a): return a.map(Int.init)
        case let .uint32(a): return a.map(Int.init)
        case let .int32(a): return a.map(Int.init)
        case let .uint64(a): return a.map { Int(truncatingIfNeeded: $0) }
        case let .int64(a): return a.map(Int.init)
        default: return nil
        }
    }
}
