import CKernels
import GGUF

/// A token-embedding table kept in its GGUF (quantized) form; rows are read from the file (pread,
/// not the mapping, so the table does not become resident row by row) and dequantized on lookup.
/// Shape `[vocabulary][width]` (GGUF `[width, vocabulary]`).
public final class EmbeddingTable: @unchecked Sendable {
    public let vocabulary: Int
    public let width: Int
    private let file: GGUFFile
    private let tensor: GGUFTensorInfo
    private let rowBytes: Int

    public init(tensor: GGUFTensorInfo, in file: GGUFFile) throws(EngineError) {
        guard tensor.shape.count == 2 else { throw .invalidWeight(tensor: tensor.name, reason: "expected a matrix, found shape \(tensor.shape)") }
        guard dequantizableTypes.contains(tensor.type) else {
            throw .unsupportedTensorType(tensor: tensor.name, type: tensor.type)
        }
        self.file = file
        self.tensor = tensor
        width = tensor.shape[0]
        vocabulary = tensor.shape[1]
        rowBytes = width / tensor.type.blockSize * tensor.type.blockBytes
    }

    /// Writes the embedding of `tokens[r]` into row r of `out`, times `scale`.
    public func lookup(_ tokens: [Int32], into out: Matrix, scale: Float = 1) {
        precondition(out.columns == width && tokens.count <= out.rows)
        withUnsafeTemporaryAllocation(byteCount: rowBytes, alignment: 64) { row in
            for (r, token) in tokens.enumerated() {
                precondition(token >= 0 && Int(token) < vocabulary, "token \(token) outside the vocabulary")
                let start = Int(token) * rowBytes
                file.copyTensorBytes(tensor, bytes: start..<start + rowBytes, into: row.baseAddress!)
                ck_dequantize_row(ck_type(tensor.type.rawValue), row.baseAddress!, out.row(r), Int64(width))
                if scale != 1 { ck_scale(out.row(r), scale, Int64(width)) }
            }
        }
    }
}
