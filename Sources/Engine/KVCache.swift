import CKernels

/// How the KV cache stores each position's keys and values.
public enum KVCacheFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// IEEE half precision (llama.cpp's default): 2 bytes per element.
    case f16
    /// ggml Q8_0 blocks: 32 int8 values and an fp16 scale, 1.06 bytes per element.
    case q8_0
    /// OCP MXFP8 E4M3 blocks: 32 FP8 codes and a ue8m0 scale, 1.03 bytes per element.
    case mxfp8_e4m3

    var ck: ck_kv_format {
        switch self {
        case .f16: return CK_KV_F16
        case .q8_0: return CK_KV_Q8_0
        case .mxfp8_e4m3: return CK_KV_MXFP8_E4M3
        }
    }

    /// Whether rows of `width` elements can be stored (block formats need multiples of 32).
    public func supports(width: Int) -> Bool { self == .f16 || width % 32 == 0 }

    public var description: String { rawValue }
}

/// Keys and values of every past position, per layer: `[layer][position][kvDim]` for K and for
/// V, each row encoded in `format`. Positions are absolute; `count` says how many are valid.
/// Truncating (for prefix reuse) just lowers `count`.
///
/// It lives in Engine rather than Architectures because it is raw memory read by the attention
/// kernel; architectures only store into it and call `attention`.
public final class KVCache: @unchecked Sendable {
    public let layers: Int
    public let capacity: Int
    /// Width of one position's keys (= kvHeads × headDim; values have the same width).
    public let kvDim: Int
    public let format: KVCacheFormat
    /// Positions currently held.
    public private(set) var count = 0

    private let rowBytes: Int
    private let keys: UnsafeMutableRawPointer
    private let values: UnsafeMutableRawPointer

    public init(layers: Int, capacity: Int, kvDim: Int, format: KVCacheFormat = .f16) {
        precondition(layers > 0 && capacity > 0 && kvDim > 0)
        precondition(format.supports(width: kvDim), "KV format \(format) needs a width that is a multiple of 32")
        self.layers = layers
        self.capacity = capacity
        self.kvDim = kvDim
        self.format = format
        rowBytes = Int(ck_kv_row_bytes(format.ck, Int64(kvDim)))
        keys = .allocate(byteCount: layers * capacity * rowBytes, alignment: 64)
        values = .allocate(byteCount: layers * capacity * rowBytes, alignment: 64)
    }

    deinit {
        keys.deallocate()
        values.deallocate()
    }

    /// Bytes held by the cache.
    public var memoryBytes: Int { 2 * layers * capacity * rowBytes }

    /// Forgets every position at or after `position`.
    public func truncate(to position: Int) {
        precondition(position >= 0)
        count = min(count, position)
    }

    /// Marks positions up to `position` (exclusive) as filled, after every layer stored them.
    public func commit(upTo position: Int) {
        precondition(position <= capacity)
        count = max(count, position)
    }

    private func offset(_ layer: Int, _ position: Int) -> Int { (layer * capacity + position) * rowBytes }

    /// `positions` as the C kernels' int64 array, in place (Int is 64-bit on every platform the
    /// package builds for), so neither a store nor an attention call copies or allocates.
    private func withInt64(_ positions: [Int], _ body: (UnsafePointer<Int64>?) -> Void) {
        positions.withUnsafeBufferPointer { p in p.withMemoryRebound(to: Int64.self) { body($0.baseAddress) } }
    }

    /// Stores rows `0..<rows` of `k` and `v` (width kvDim) at `positions` for `layer`, the rows
    /// split over `threads` threads when there are many (prefill).
    public func store(layer: Int, keys k: Matrix, values v: Matrix, rows: Int, positions: [Int], threads: Int = 1) {
        precondition(k.columns == kvDim && v.columns == kvDim && rows <= k.rows && rows <= v.rows && positions.count >= rows)
        for p in positions.prefix(rows) {
            precondition(p >= 0 && p < capacity, "position \(p) outside the cache (capacity \(capacity))")
        }
        withInt64(positions) { pos in
            ck_kv_store_rows(format.ck, k.base, v.base, Int64(rows), Int64(kvDim), pos,
                             (keys + offset(layer, 0)).assumingMemoryBound(to: UInt8.self),
                             (values + offset(layer, 0)).assumingMemoryBound(to: UInt8.self), Int64(rowBytes),
                             Int32(threads))
        }
    }

    /// Causal (optionally sliding-window) attention for rows `0..<rows` of `q`
    /// (`[rows][heads × headDim]`, already scaled) against this layer's cache; query row r sits at
    /// `positions[r]` and sees positions `max(0, p − window + 1) … p`. Grouped-query: query head h
    /// reads KV head h / (heads / kvHeads). Writes `out` `[rows][heads × headDim]`.
    /// `scratch` holds each thread's softmax weights and a decoded row (grown here when too small).
    public func attention(layer: Int, queries q: Matrix, rows: Int, positions: [Int], heads: Int, headDim: Int,
                          window: Int?, into out: Matrix, scratch: inout [Float], threads: Int) {
        let kvHeads = kvDim / headDim
        precondition(q.columns == heads * headDim && out.columns == q.columns && heads % kvHeads == 0)
        precondition(positions.prefix(rows).allSatisfy { $0 >= 0 && $0 < capacity }, "position outside the cache")
        let threads = max(1, threads), stride = Int(ck_attention_scratch_floats(Int64(capacity), Int64(headDim)))
        if scratch.count < threads * stride { scratch = [Float](repeating: 0, count: threads * stride) }
        let k = UnsafePointer<UInt8>((keys + offset(layer, 0)).assumingMemoryBound(to: UInt8.self))
        let v = UnsafePointer<UInt8>((values + offset(layer, 0)).assumingMemoryBound(to: UInt8.self))
        withInt64(positions) { pos in
            scratch.withUnsafeMutableBufferPointer { w in
                var desc = ck_attention_desc(
                    q: q.base, q_stride: Int64(q.columns), k: k, v: v, row_bytes: Int64(rowBytes), format: format.ck,
                    positions: pos, rows: Int64(rows), heads: Int64(heads), kv_heads: Int64(kvHeads),
                    head_dim: Int64(headDim), window: Int64(window ?? 0), out: out.base, out_stride: Int64(out.columns),
                    scratch: w.baseAddress, scratch_stride: Int64(stride))
                ck_attention(&desc, Int32(threads))
            }
        }
    }
}
