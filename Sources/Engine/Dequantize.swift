import CKernels
import GGUF

/// Errors from turning GGUF tensors into numbers.
public enum EngineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The tensor's type has no dequantizer in CKernels.
    case unsupportedTensorType(tensor: String, type: GGMLType)
    /// The tensor cannot be used as a matmul weight (shape, size or requested conversion).
    case invalidWeight(tensor: String, reason: String)

    public var description: String {
        switch self {
        case let .unsupportedTensorType(tensor, type): return "tensor \(tensor): type \(type) is not supported"
        case let .invalidWeight(tensor, reason): return "tensor \(tensor): \(reason)"
        }
    }
}

/// Types the reference dequantizer decodes.
public let dequantizableTypes: Set<GGMLType> = [.f32, .f16, .bf16, .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q3_K, .q4_K, .q5_K, .q6_K, .iq4_nl, .iq4_xs]

/// Dequantizes rows `rows` of a tensor into fp32, row-major `[rows.count][rowLength]`.
public func dequantizeRows(_ tensor: GGUFTensorInfo, in file: GGUFFile, rows: Range<Int>? = nil) throws(EngineError) -> [Float] {
    guard dequantizableTypes.contains(tensor.type) else {
        throw .unsupportedTensorType(tensor: tensor.name, type: tensor.type)
    }
    let rows = rows ?? 0..<tensor.rowCount
    precondition(rows.lowerBound >= 0 && rows.upperBound <= tensor.rowCount, "row range out of bounds")
    let rowLength = tensor.rowLength
    let rowBytes = rowLength / tensor.type.blockSize * tensor.type.blockBytes
    let data = file.tensorData(tensor)
    return [Float](unsafeUninitializedCapacity: rows.count * rowLength) { out, initialized in
        for (i, row) in rows.enumerated() {
            let status = ck_dequantize_row(ck_type(tensor.type.rawValue), data.baseAddress! + row * rowBytes,
                                           out.baseAddress! + i * rowLength, Int64(rowLength))
            precondition(status == 0, "dequantizer rejected a validated tensor")
        }
        initialized = rows.count * rowLength
    }
}
