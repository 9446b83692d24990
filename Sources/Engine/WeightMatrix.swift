#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CKernels
import GGUF

/// A matmul weight `W[n][k]` (k contiguous) in one `WeightFormat`, ready for the kernels.
///
/// The original blocks stay where they are (the mmap'd GGUF file, kept alive by this object, or
/// a buffer this object owns after a conversion); the reference kernel reads them. At load the
/// integer formats are also repacked into 16-row interleaved int8/int4 tiles (`ck_matmul.h`) and
/// MXFP8, F16 and BF16 into 64-row bands of their codes or values; this object owns those buffers.
/// Immutable after init, so it can be shared across threads.
public final class WeightMatrix: @unchecked Sendable {
    /// Output features (rows of W).
    public let n: Int
    /// Input features (row length).
    public let k: Int
    /// Element format of the weights.
    public let format: WeightFormat
    /// The tensor name (or a caller-given label).
    public let name: String

    private let file: GGUFFile?
    /// The converted or copied blocks when this object owns them (not the file's).
    private let ownedRaw: HugePageBuffer?
    private let repacked: [HugePageBuffer]
    /// Total bytes of the load-time repacked buffers.
    public let repackedByteCount: Int
    let weights: ck_weights

    /// Rows repacked per step at load (a multiple of 16): small enough that a slice of the source
    /// (22 MB of a 4B model's Q8_0 head) is about all that is resident twice at any time.
    static let repackSliceRows = 8192

    /// Threads used for load-time repacking: every online processor (the load is the only work).
    nonisolated(unsafe) public static var loadThreads = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// Wraps a 2-D GGUF tensor of shape `[k, n]` (ne0 = k contiguous) without copying its blocks.
    public convenience init(tensor: GGUFTensorInfo, in file: GGUFFile) throws(EngineError) {
        guard let format = WeightFormat(tensor.type) else {
            throw .unsupportedTensorType(tensor: tensor.name, type: tensor.type)
        }
        guard tensor.shape.count == 2 else {
            throw .invalidWeight(tensor: tensor.name, reason: "expected a 2-D tensor, shape \(tensor.shape)")
        }
        let data = file.tensorData(tensor)
        let (k, n) = (tensor.shape[0], tensor.shape[1])
        guard k % max(32, format.blockSize) == 0, data.count == n * format.rowBytes(k: k) else {
            throw .invalidWeight(tensor: tensor.name, reason: "row length \(k) is not a whole number of 32-blocks")
        }
        // The fast paths read the repacked copy from then on (the reference kernel pages the
        // file in again if it runs); the designated init drops the file's pages as it goes.
        self.init(name: tensor.name, format: format, n: n, k: k, raw: data.baseAddress!, file: file, owned: nil)
    }

    /// Loads a 2-D GGUF tensor and converts it to `format` at load (dequantize to fp32, then
    /// quantize with round-to-nearest-even). Targets: the MX formats, `f32`, `f16` and `bf16`; asking for
    /// the tensor's own format is the zero-copy init.
    public convenience init(tensor: GGUFTensorInfo, in file: GGUFFile, convertingTo format: WeightFormat) throws(EngineError) {
        if WeightFormat(tensor.type) == format {
            try self.init(tensor: tensor, in: file)
            return
        }
        guard tensor.shape.count == 2 else {
            throw .invalidWeight(tensor: tensor.name, reason: "expected a 2-D tensor, shape \(tensor.shape)")
        }
        try self.init(converting: tensor, in: file, rows: 0..<tensor.shape[1], to: format, name: tensor.name)
    }

    /// Rows `rows` of a 2-D GGUF tensor `[k, n]` as a weight of its own: a column view of a fused
    /// projection's output (Q, K and V of `attn_qkv`, gate and up of a fused `ffn_up`), without
    /// copying the blocks (rows are whole runs of blocks). `format` nil keeps the tensor's own
    /// format; otherwise the rows are converted as in `init(tensor:in:convertingTo:)`.
    public convenience init(tensor: GGUFTensorInfo, in file: GGUFFile, rows: Range<Int>,
                            convertingTo target: WeightFormat? = nil) throws(EngineError) {
        guard tensor.shape.count == 2 else {
            throw .invalidWeight(tensor: tensor.name, reason: "expected a 2-D tensor, shape \(tensor.shape)")
        }
        let (k, n) = (tensor.shape[0], tensor.shape[1])
        guard rows.lowerBound >= 0, rows.upperBound <= n, !rows.isEmpty else {
            throw .invalidWeight(tensor: tensor.name, reason: "rows \(rows) outside 0..<\(n)")
        }
        let name = "\(tensor.name)[\(rows.lowerBound)..<\(rows.upperBound)]"
        if let target, WeightFormat(tensor.type) != target {
            try self.init(converting: tensor, in: file, rows: rows, to: target, name: name)
            return
        }
        guard let format = WeightFormat(tensor.type) else {
            throw .unsupportedTensorType(tensor: tensor.name, type: tensor.type)
        }
        let data = file.tensorData(tensor), rowBytes = format.rowBytes(k: k)
        guard k % max(32, format.blockSize) == 0, data.count == n * rowBytes else {
            throw .invalidWeight(tensor: tensor.name, reason: "row length \(k) is not a whole number of 32-blocks")
        }
        self.init(name: name, format: format, n: rows.count, k: k, raw: data.baseAddress! + rows.lowerBound * rowBytes, file: file, owned: nil)
    }

    /// Rows `rows` of a 2-D GGUF tensor `[k, n]` converted to `format` (MX formats, `f32`, `f16`,
    /// `bf16`) on every load thread, each row dequantized to fp32 and quantized with
    /// round-to-nearest-even in turn (`ck_convert_rows`): no fp32 copy of the tensor is made.
    private convenience init(converting tensor: GGUFTensorInfo, in file: GGUFFile, rows: Range<Int>, to format: WeightFormat,
                             name: String) throws(EngineError) {
        guard dequantizableTypes.contains(tensor.type) else {
            throw .unsupportedTensorType(tensor: tensor.name, type: tensor.type)
        }
        let k = tensor.rowLength
        try Self.checkQuantizable(to: format, k: k, name: name)
        let sourceRowBytes = k / tensor.type.blockSize * tensor.type.blockBytes, rowBytes = format.rowBytes(k: k)
        let owned = HugePageBuffer(byteCount: max(1, rows.count * rowBytes)), raw = owned.pointer
        let status = ck_convert_rows(ck_type(tensor.type.rawValue), file.tensorData(tensor).baseAddress! + rows.lowerBound * sourceRowBytes,
                                     Int64(sourceRowBytes), format.ck, raw, Int64(rowBytes), Int64(rows.count), Int64(k),
                                     Int32(WeightMatrix.loadThreads))
        precondition(status == 0, "the converter rejected a validated tensor")
        file.releaseResidentPages()   // the converted copy is ours (see the designated init)
        self.init(name: name, format: format, n: rows.count, k: k, raw: UnsafeRawPointer(raw), file: nil, owned: owned)
    }

    /// Throws unless rows of k values can be quantized into `format` (`ck_convert_rows`' targets:
    /// the MX formats, `f32`, `f16`, `bf16`; k a whole number of 32-blocks).
    private static func checkQuantizable(to format: WeightFormat, k: Int, name: String) throws(EngineError) {
        guard format.isMX || format == .f32 || format == .f16 || format == .bf16 else {
            throw .invalidWeight(tensor: name, reason: "no quantizer to \(format) (load the GGUF tensor as it is)")
        }
        guard k % 32 == 0 else { throw .invalidWeight(tensor: name, reason: "k = \(k) is not a multiple of 32") }
    }

    /// Quantizes fp32 values `[n][k]` into `format` (MX formats, `f32`, `f16`, `bf16`).
    public convenience init(quantizing values: [Float], n: Int, k: Int, as format: WeightFormat, name: String = "weight") throws(EngineError) {
        precondition(values.count == n * k, "values must hold n * k elements")
        try Self.checkQuantizable(to: format, k: k, name: name)
        let rowBytes = format.rowBytes(k: k)
        let owned = HugePageBuffer(byteCount: max(1, n * rowBytes)), raw = owned.pointer
        let status = values.withUnsafeBufferPointer { v in
            v.isEmpty ? 0 : ck_convert_rows(ck_type(GGMLType.f32.rawValue), v.baseAddress!, Int64(k * 4), format.ck, raw,
                                            Int64(rowBytes), Int64(n), Int64(k), Int32(WeightMatrix.loadThreads))
        }
        precondition(status == 0, "the converter rejected fp32 rows")
        self.init(name: name, format: format, n: n, k: k, raw: UnsafeRawPointer(raw), file: nil, owned: owned)
    }

    /// Copies already-encoded blocks (`n` rows of `format.rowBytes(k:)` bytes each), e.g. for
    /// synthetic weights in tests and benchmarks.
    public convenience init(blocks: UnsafeRawBufferPointer, n: Int, k: Int, format: WeightFormat, name: String = "weight") throws(EngineError) {
        guard k % max(32, format.blockSize) == 0, blocks.count == n * format.rowBytes(k: k) else {
            throw .invalidWeight(tensor: name, reason: "block buffer does not match \(n) x \(k) \(format)")
        }
        let owned = HugePageBuffer(byteCount: max(1, blocks.count))
        owned.pointer.copyMemory(from: blocks.baseAddress!, byteCount: blocks.count)
        self.init(name: name, format: format, n: n, k: k, raw: UnsafeRawPointer(owned.pointer), file: nil, owned: owned)
    }

    /// `file`: the mapped file `raw` points into, if any. After each slice of rows is repacked,
    /// every page of it mapped into this process is dropped, not only the slice's: the kernel
    /// maps whole page-cache folios around a fault (up to 2 MiB on ext4), across tensor
    /// boundaries and in whatever order the tensors load, and dropping only the slices left a
    /// 4 GB model's load with ~140 MiB of the file mapped by its end (none this way).
    private init(name: String, format: WeightFormat, n: Int, k: Int, raw: UnsafeRawPointer, file: GGUFFile?, owned: HugePageBuffer?) {
        self.name = name
        self.format = format
        self.n = n
        self.k = k
        self.file = file
        self.ownedRaw = owned
        var qsBytes = 0, dwBytes = 0, mwBytes = 0, decBytes = 0
        ck_repack_sizes(format.ck, Int64(n), Int64(k), &qsBytes, &dwBytes, &mwBytes, &decBytes)
        func alloc(_ bytes: Int) -> HugePageBuffer? { bytes == 0 ? nil : HugePageBuffer(byteCount: bytes) }
        let buffers = [alloc(qsBytes), alloc(dwBytes), alloc(mwBytes), alloc(decBytes)]
        let (qs, dw, mw, dec) = (buffers[0]?.pointer, buffers[1]?.pointer, buffers[2]?.pointer, buffers[3]?.pointer)
        repacked = buffers.compactMap { $0 }
        repackedByteCount = qsBytes + dwBytes + mwBytes + decBytes
        let w = ck_weights(format: format.ck, n: Int64(n), k: Int64(k), raw: raw,
                             raw_row_bytes: Int64(format.rowBytes(k: k)),
                             qs: qs?.assumingMemoryBound(to: UInt8.self), dw: dw, mw: mw,
                             qs_dec: dec?.assumingMemoryBound(to: UInt8.self))
        withUnsafePointer(to: w) { wp in
            for n0 in stride(from: 0, to: n, by: Self.repackSliceRows) {
                let n1 = min(n, n0 + Self.repackSliceRows)
                ck_repack(wp, Int64(n0), Int64(n1), Int32(WeightMatrix.loadThreads))
                file?.releaseResidentPages()
            }
        }
        weights = w
    }

    /// Bytes of the original blocks (what a decode step streams per token in the original format).
    public var byteCount: Int { n * format.rowBytes(k: k) }

    /// The weights decoded to fp32, `[n][k]`, with the reference dequantizers.
    public func dequantized() -> [Float] {
        let rowBytes = format.rowBytes(k: k)
        return [Float](unsafeUninitializedCapacity: n * k) { out, initialized in
            for r in 0..<n {
                let x = weights.raw! + r * rowBytes
                let y = out.baseAddress! + r * k
                let kk = Int64(k)
                switch format {
                case .mxint8: ck_dequantize_row_mxint8(x.assumingMemoryBound(to: ck_block_mxint8.self), y, kk)
                case .mxfp8_e4m3: ck_dequantize_row_mxfp8_e4m3(x.assumingMemoryBound(to: ck_block_mxfp8.self), y, kk)
                case .mxfp8_e5m2: ck_dequantize_row_mxfp8_e5m2(x.assumingMemoryBound(to: ck_block_mxfp8.self), y, kk)
                case .mxfp4: ck_dequantize_row_mxfp4(x.assumingMemoryBound(to: ck_block_mxfp4.self), y, kk)
                default:
                    let type = ck_type(GGMLTypeRaw(format))
                    let status = ck_dequantize_row(type, x, y, kk)
                    precondition(status == 0, "dequantizer rejected \(format)")
                }
            }
            initialized = n * k
        }
    }
}

/// GGUF type id of a GGUF-backed weight format.
private func GGMLTypeRaw(_ f: WeightFormat) -> UInt32 {
    switch f {
    case .f32: return GGMLType.f32.rawValue
    case .f16: return GGMLType.f16.rawValue
    case .bf16: return GGMLType.bf16.rawValue
    case .q4_0: return GGMLType.q4_0.rawValue
    case .q4_1: return GGMLType.q4_1.rawValue
    case .q5_0: return GGMLType.q5_0.rawValue
    case .q5_1: return GGMLType.q5_1.rawValue
    case .iq4_nl: return GGMLType.iq4_nl.rawValue
    case .iq4_xs: return GGMLType.iq4_xs.rawValue
    case .q8_0: return GGMLType.q8_0.rawValue
    case .q3_K: return GGMLType.q3_K.rawValue
    case .q4_K: return GGMLType.q4_K.rawValue
    case .q5_K: return GGMLType.q5_K.rawValue
    case .q6_K: return GGMLType.q6_K.rawValue
    default: preconditionFailure("\(f) is not a GGUF type")
    }
}
