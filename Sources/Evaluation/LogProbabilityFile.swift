import LanguageModelAPI
import LocalModels
import Foundation

/// The base log-probability file of `llama-perplexity --kl-divergence-base` (llama.cpp's
/// `tools/perplexity`), which both tools read and write, so a quantized model can be compared
/// with a reference run of either engine. Little-endian:
///
///     "_logits_"        8 bytes
///     n_ctx             uint32   context (tokens per chunk)
///     n_vocab           int32
///     n_chunk           int32
///     tokens            int32 [n_chunk][n_ctx]   the evaluated text, before BOS replacement
///     rows              per chunk, one per scored position (n_ctx − 1 − n_ctx/2 of them):
///                       uint16 [nv], nv = 2·⌈n_vocab/2⌉ + 4
///
/// A row is the fp32 `scale` and fp32 `minLogProbability` (the first 4 uint16) and then one
/// uint16 `q` per token: log p = scale·q + minLogProbability. Log-probabilities more than 16
/// below the top one are clamped to the minimum (q = 0).
public struct LogProbabilityFile: Sendable {
    static let magic = Array("_logits_".utf8)
    static let headerBytes = 8 + 4 + 4 + 4

    /// Tokens per chunk.
    public let contextSize: Int
    public let vocabulary: Int
    public let chunks: Int
    /// The evaluated tokens, `chunks × contextSize`.
    public let tokens: [Int32]
    let path: String

    /// Scored positions per chunk (llama-perplexity scores the second half).
    public var rowsPerChunk: Int { contextSize - 1 - contextSize / 2 }
    /// uint16 values per row: scale and minimum (4), then the vocabulary padded to even.
    var rowWidth: Int { Self.rowWidth(vocabulary: vocabulary) }
    static func rowWidth(vocabulary: Int) -> Int { 2 * ((vocabulary + 1) / 2) + 4 }

    /// Reads the header and the tokens, and checks that the rows of every chunk are there.
    public init(path: String) throws(LogProbabilityFileError) {
        self.path = path
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)) } catch { throw .unreadable(path) }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: Self.headerBytes)) ?? nil
        guard let header, header.count == Self.headerBytes, Array(header.prefix(8)) == Self.magic else { throw .notALogProbabilityFile(path) }
        let fields = littleEndianUInt32s(Array(header.dropFirst(8)))
        let context = Int(fields[0]), vocabulary = Int(Int32(bitPattern: fields[1])), chunks = Int(Int32(bitPattern: fields[2]))
        guard context >= 4, context <= 1 << 20, vocabulary > 0, vocabulary <= 1 << 22, chunks > 0, chunks <= 1 << 20 else {
            throw .badHeader(context: context, vocabulary: vocabulary, chunks: chunks)
        }
        let tokenBytes = chunks * context * 4
        let rowBytes = (context - 1 - context / 2) * Self.rowWidth(vocabulary: vocabulary) * 2
        let expected = UInt64(Self.headerBytes + tokenBytes) + UInt64(chunks) * UInt64(rowBytes)
        let size = (try? handle.seekToEnd()) ?? 0
        guard size >= expected else { throw .truncated(path, bytes: size, needed: expected) }
        try? handle.seek(toOffset: UInt64(Self.headerBytes))
        guard let raw = try? handle.read(upToCount: tokenBytes), raw.count == tokenBytes else { throw .truncated(path, bytes: size, needed: expected) }
        tokens = littleEndianUInt32s(Array(raw)).map { Int32(bitPattern: $0) }
        if let bad = tokens.first(where: { $0 < 0 || Int($0) >= vocabulary }) { throw .tokenOutOfRange(Int(bad), vocabulary: vocabulary) }
        (contextSize, self.vocabulary, self.chunks) = (context, vocabulary, chunks)
    }

    /// The rows of chunk `chunk`, `rowsPerChunk × rowWidth` uint16.
    func rows(ofChunk chunk: Int) throws(LogProbabilityFileError) -> [UInt16] {
        let count = rowsPerChunk * rowWidth
        let offset = UInt64(Self.headerBytes + tokens.count * 4) + UInt64(chunk) * UInt64(count * 2)
        guard let handle = try? FileHandle(forReadingFrom: URL(fileURLWithPath: path)) else { throw .unreadable(path) }
        defer { try? handle.close() }
        try? handle.seek(toOffset: offset)
        guard let data = try? handle.read(upToCount: count * 2), data.count == count * 2 else {
            throw .truncated(path, bytes: offset, needed: offset + UInt64(count * 2))
        }
        let bytes = [UInt8](data)
        return (0..<count).map { UInt16(bytes[2 * $0]) | UInt16(bytes[2 * $0 + 1]) << 8 }
    }

    /// Encodes one row of logits as llama-perplexity does (the minimum clamped 16 below the
    /// maximum; q = round-to-nearest-even((logit − min)/scale)), into `row` (`rowWidth` values).
    static func encode(_ logits: [Float], into row: inout [UInt16]) {
        var maxLogit = logits[0], minLogit = logits[0]
        for v in logits { maxLogit = max(maxLogit, v); minLogit = min(minLogit, v) }
        minLogit = max(minLogit, maxLogit - 16)
        var sumExp = 0.0
        for v in logits { sumExp += Double(expf(v - maxLogit)) }
        let logSumExp = Float(log(sumExp))
        let minLogProbability = minLogit - maxLogit - logSumExp
        let scale = (maxLogit - minLogit) / 65535
        for (i, word) in [scale.bitPattern, minLogProbability.bitPattern].enumerated() {
            row[2 * i] = UInt16(truncatingIfNeeded: word)
            row[2 * i + 1] = UInt16(truncatingIfNeeded: word >> 16)
        }
        let inverse = scale == 0 ? 0 : 1 / scale
        for (i, v) in logits.enumerated() {
            row[4 + i] = scale != 0 && v > minLogit ? UInt16(clamping: Int((inverse * (v - minLogit)).rounded(.toNearestOrEven))) : 0
        }
    }

    /// The scale and minimum log-probability of the row starting at `start` (its first four uint16).
    static func header(of rows: [UInt16], at start: Int) -> (scale: Float, minimum: Float) {
        let word = { (i: Int) in Float(bitPattern: UInt32(rows[start + i]) | UInt32(rows[start + i + 1]) << 16) }
        return (word(0), word(2))
    }
}

/// `bytes` read as little-endian uint32s.
private func littleEndianUInt32s(_ bytes: [UInt8]) -> [UInt32] {
    (0..<bytes.count / 4).map { i in
        UInt32(bytes[4 * i]) | UInt32(bytes[4 * i + 1]) << 8 | UInt32(bytes[4 * i + 2]) << 16 | UInt32(bytes[4 * i + 3]) << 24
    }
}

/// Writes a base log-probability file while perplexity runs: the header and tokens first, then
/// each chunk's scored rows as they are computed.
final class LogProbabilityWriter {
    private let handle: FileHandle
    private var row: [UInt16]
    let path: String

    init(path: String, contextSize: Int, vocabulary: Int, tokens: [Int32]) throws(LogProbabilityFileError) {
        self.path = path
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = try? FileHandle(forWritingTo: URL(fileURLWithPath: path)) else { throw .unwritable(path) }
        self.handle = handle
        row = [UInt16](repeating: 0, count: LogProbabilityFile.rowWidth(vocabulary: vocabulary))
        var header = Data(LogProbabilityFile.magic)
        let chunks = tokens.count / contextSize
        for word in [UInt32(contextSize), UInt32(vocabulary), UInt32(chunks)] + tokens.prefix(chunks * contextSize).map({ UInt32(bitPattern: $0) }) {
            header.append(contentsOf: (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) })
        }
        try write(header)
    }

    deinit { try? handle.close() }

    /// Appends one scored position's row.
    func append(_ logits: [Float]) throws(LogProbabilityFileError) {
        LogProbabilityFile.encode(logits, into: &row)
        var bytes = Data(capacity: row.count * 2)
        for value in row { bytes.append(UInt8(truncatingIfNeeded: value)); bytes.append(UInt8(value >> 8)) }
        try write(bytes)
    }

    private func write(_ data: Data) throws(LogProbabilityFileError) {
        do { try handle.write(contentsOf: data) } catch { throw .unwritable(path) }
    }
}

/// Why a base log-probability file could not be used.
public enum LogProbabilityFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable(String)
    case unwritable(String)
    /// The file does not start with llama-perplexity's `_logits_` tag.
    case notALogProbabilityFile(String)
    case badHeader(context: Int, vocabulary: Int, chunks: Int)
    case truncated(String, bytes: UInt64, needed: UInt64)
    case tokenOutOfRange(Int, vocabulary: Int)
    /// The file was made with another vocabulary than the model's.
    case vocabularyMismatch(file: Int, model: Int)
    /// The file's context is longer than the model was trained for.
    case contextTooLong(file: Int, model: Int)

    public var description: String {
        switch self {
        case let .unreadable(path): return "cannot read \(path)"
        case let .unwritable(path): return "cannot write \(path)"
        case let .notALogProbabilityFile(path): return "\(path) is not a llama-perplexity log-probability file (no _logits_ tag)"
        case let .badHeader(c, v, n): return "implausible log-probability header: n_ctx \(c), n_vocab \(v), n_chunk \(n)"
        case let .truncated(path, bytes, needed): return "\(path) is truncated: \(bytes) bytes, \(needed) needed"
        case let .tokenOutOfRange(t, v): return "token \(t) in the log-probability file is outside the vocabulary of \(v)"
        case let .vocabularyMismatch(file, model): return "the log-probability file has a vocabulary of \(file) tokens, the model \(model)"
        case let .contextTooLong(file, model): return "the log-probability file was made with a context of \(file), above the model's trained \(model)"
        }
    }
}
