import CKernels

/// Keys and values of every past position, per layer, stored as fp16: `[layer][position][kvDim]`
/// for K and for V. Positions are absolute; `count` says how many are valid. Truncating (for
/// prefix reuse) just lowers `count`.
///
/// It lives in Engine rather than Architectures because it is raw memory read by the attention
/// kernel; architectures only append to it and call `attention`.
public final class KVCache: @unchecked Sendable {
    public let layers: Int
    public let capacity: Int
    /// Width of one position's keys (= kvHeads × headDim; values have the same width).
    public let kvDim: Int
    /// Positions currently held.
    public private(set) var count = 0

    private let keys: UnsafeMutablePointer<ck_half>
    private let values: UnsafeMutablePointer<ck_half>

    public init(layers: Int, capacity: Int, kvDim: Int) {
        precondition(layers > 0 && capacity > 0 && kvDim > 0)
        self.layers = layers
        self.capacity = capacity
        self.kvDim = kvDim
        keys = .allocate(capacity: layers * capacity * kvDim)
        values = .allocate(capacity: layers * capacity * kvDim)
    }

    deinit {
        keys.deallocate()
        values.deallocate()
    }

    /// Bytes held by the cache.
    public var memoryBytes: Int { 2 * layers * capacity * kvDim * MemoryLayout<ck_half>.size }

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

    private func slot(_ layer: Int, _ position: Int) -> Int { (layer * capacity + position) * kvDim }

    /// Stores rows `0..<rows` of `k` and `v` (width kvDim) at `positions` for `layer`.
    public func store(layer: Int, keys k: Matrix, values v: Matrix, rows: Int, positions: [Int]) {
        precondition(k.columns == kvDim && v.columns == kvDim)
        for r in 0..<rows {
            let p = positions[r]
            precondition(p >= 0 && p < capacity, "position \(p) outside the cache (capacity \(capacity))")
            ck_fp32_to_fp16_row(k.row(r), keys + slot(layer, p), Int64(kvDim))
            ck_fp32_to_fp16_row(v.row(r), values + slot(layer, p), Int64(kvDim))
        }
    }

    /// Causal (optionally sliding-window) attention for rows `0..<rows` of `q`
    /// (`[rows][heads × headDim]`, already scaled) against this layer's cache; query row r sits at
    /// `positions[r]` and sees positions `max(0, p − window + 1) … p`. Grouped-query: query head h
    /// reads KV head h / (heads / kvHeads). Writes `out` `[rows][heads × headDim]`.
    /// `scratch` holds the softmax weights of each thread (grown here when too small).
    public func attention(layer: Int, queries q: Matrix, rows: Int, positions: [Int], heads: Int, headDim: Int,
                          window: Int?, into out: Matrix, scratch: inout [Float], threads: Int) {
        let kvHeads = kvDim / headDim
        precondition(q.columns == heads * headDim && out.columns == q.columns && heads % kvHeads == 0)
        precondition(positions.prefix(rows).allSatisfy { $0 >= 0 && $0 < capacity }, "position outside the cache")
        let threads = max(1, threads)
        if scratch.count < threads * capacity { scratch = [Float](repeating: 0, count: threads * capacity) }
        let base = slot(layer, 0)
        let positions64 = positions.prefix(rows).map { Int64($0) }
        positions64.withUnsafeBufferPointer { pos in
            scratch.withUnsafeMutableBufferPointer { w in
                var desc = ck_attention_desc(
                    q: q.base, q_stride: Int64(q.columns), k: keys + base, v: values + base, kv_stride: Int64(kvDim),
                    positions: pos.baseAddress, rows: Int64(rows), heads: Int64(heads), kv_heads: Int64(kvHeads),
                    head_dim: Int64(headDim), window: Int64(window ?? 0), out: out.base, out_stride: Int64(out.columns),
                    scratch: w.baseAddress, scratch_stride: Int64(capacity))
                ck_attention(&desc, Int32(threads))
            }
        }
    }
}
