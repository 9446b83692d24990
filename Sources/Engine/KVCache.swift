import CKernels
#if canImport(Glibc)
import Glibc
#endif

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

    /// Whether a model whose heads are `headDim` wide can use this format: the attention kernels
    /// read a block format's head segment as whole 32-element blocks.
    public func supports(headDim: Int) -> Bool { self == .f16 || headDim % 32 == 0 }

    public var description: String { rawValue }
}

/// What the query rows of an attention call are. The kind picks the attention kernel, never the
/// number of rows, so each row's output is the same bits however the rows are batched: prompt
/// rows in any prefill chunk size (1 row included), a decoded row alone or beside others.
public enum RowKind: Sendable, Equatable {
    /// Tokens prefilled: a prompt, or any chunk of one (the blocked prefill kernel).
    case prompt
    /// Tokens the model produced, one decode step each (split-K, or per query head over a short
    /// fp16 context).
    case decoded

    var ck: ck_attention_rows { self == .prompt ? CK_ROWS_PROMPT : CK_ROWS_DECODED }
}

/// Why the KV cache cannot hold the positions asked for.
public enum KVCacheError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Address space for the whole context (`contextBytes`, saturated at Int.max) could not be
    /// reserved: the context is larger than this machine can ever address.
    case cannotReserve(contextSize: Int, contextBytes: Int)
    /// Holding `positions` positions needs `neededBytes` more memory than the `availableBytes`
    /// this machine has free.
    case outOfMemory(positions: Int, neededBytes: Int, availableBytes: Int)

    public var description: String {
        switch self {
        case let .cannotReserve(context, bytes):
            return "a context of \(context) tokens needs \(bytes == Int.max ? "more than \(bytes)" : "\(bytes)") bytes "
                + "of KV cache, more than this machine can address (lower --ctx)"
        case let .outOfMemory(positions, needed, available):
            return "holding \(positions) positions in the KV cache needs \(needed) more bytes, "
                + "but only \(available) bytes of memory are available (lower --ctx or free memory)"
        }
    }
}

/// Keys and values of every past position, per layer: `[layer][position][kvDim]` for K and for
/// V, each row encoded in `format`. Positions are absolute; `count` says how many are valid.
/// Truncating (for prefix reuse) just lowers `count`.
///
/// A sliding-window layer (window w) keeps only the positions its attention can still see: at
/// most `w − 1 + maxBatch` rows, slot 0 holding position `offset[layer]`. When a store would run
/// past the last slot, the last `w − 1` positions before it move down to slot 0 (one memmove of
/// w − 1 rows every `maxBatch` or more positions), so the kernels still read each range of
/// positions as one stride of rows; they are handed the layer's base moved back by `offset` rows
/// and keep indexing by absolute position (they never read below `offset`). Positions a window
/// layer dropped cannot be recovered: `truncate` then falls back to an empty cache (the caller
/// re-prefills), which keeps every result identical to a cache holding the whole context.
///
/// Memory grows with the context, not with `capacity`: the whole `[layer][capacity]` range is
/// reserved as address space up front (so rows never move and the kernels keep one stride), and
/// pages are committed in doubling runs of positions as they are first needed, after checking
/// that the machine has the memory. `reserve(upTo:)` does that ahead of time with a typed error;
/// `store` commits on its own when the caller did not.
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
    /// Positions whose memory is committed (readable and writable) in every layer.
    public private(set) var committed = 0
    /// Bytes of K and V rows the query rows of `attention` calls have seen, summed over query rows
    /// and layers since creation: for one-row decode exactly the cache bytes attention reads (the
    /// bench's roofline counts it per token).
    public private(set) var bytesSeen = 0

    private let rowBytes: Int
    private let pageBytes = Int(sysconf(Int32(_SC_PAGESIZE)))
    /// Bytes from one layer's rows to the next: capacity rows rounded up to whole pages, so each
    /// layer's committed prefix is one page-aligned run.
    private let layerBytes: Int
    /// Reserved address space for all layers' keys, then values; nil when it could not be had.
    private let region: UnsafeMutableRawPointer?
    private let regionBytes: Int
    /// Where free memory is read from before committing (replaced in tests).
    var availableMemory: () -> Int = AvailableMemory.bytes

    /// Fewest positions committed at once, so short prompts do not commit page by page.
    static let minimumCommit = 256

    /// Per layer, the window its attention uses (0: the whole past).
    public let windows: [Int]
    /// Per layer, the rows its memory holds: `capacity` for full layers, `window − 1 + maxBatch`
    /// (grown if a store brings more rows at once) for windowed ones.
    public private(set) var slots: [Int]
    /// Per layer, the position held in row 0 (always 0 for full layers).
    public private(set) var offsets: [Int]

    /// - Parameters:
    ///   - windows: per layer, the sliding window its attention will ask for (0 or absent: the
    ///     whole past). Windowed layers keep only what that window needs.
    ///   - maxBatch: most positions one store brings (the prefill batch), sizing the windowed rows.
    public init(layers: Int, capacity: Int, kvDim: Int, format: KVCacheFormat = .f16, windows: [Int] = [], maxBatch: Int = 1) {
        precondition(layers > 0 && capacity > 0 && kvDim > 0 && maxBatch > 0)
        precondition(format.supports(width: kvDim), "KV format \(format) needs a width that is a multiple of 32")
        precondition(windows.isEmpty || windows.count == layers, "one window per layer")
        self.layers = layers
        self.capacity = capacity
        self.kvDim = kvDim
        self.format = format
        self.windows = windows.isEmpty ? [Int](repeating: 0, count: layers) : windows.map { max(0, $0) }
        // A window layer only saves memory when its rows are fewer than the context's.
        slots = self.windows.map { w in w > 0 && w - 1 + maxBatch < capacity ? w - 1 + maxBatch : capacity }
        offsets = [Int](repeating: 0, count: layers)
        rowBytes = Int(ck_kv_row_bytes(format.ck, Int64(kvDim)))
        let (rows, o1) = capacity.multipliedReportingOverflow(by: rowBytes)
        let (layer, o2) = rows.addingReportingOverflow(pageBytes - 1)
        layerBytes = o1 || o2 ? Int.max : layer / pageBytes * pageBytes
        let (all, o3) = layerBytes.multipliedReportingOverflow(by: 2 * layers)
        regionBytes = o1 || o2 || o3 ? Int.max : all
        // PROT_NONE + MAP_NORESERVE takes address space only: no memory is charged until pages
        // are made writable in `reserve(upTo:)`.
        if regionBytes != Int.max,
           let base = mmap(nil, regionBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
           base != MAP_FAILED {
            region = base
        } else {
            region = nil
        }
    }

    deinit {
        if let region { munmap(region, regionBytes) }
    }

    /// Bytes of memory the cache holds (committed rows of every layer, keys and values).
    public var memoryBytes: Int { slots.reduce(0) { $0 + 2 * committedBytes(min(committed, $1)) } }

    /// Whether `layer` keeps only its window's rows.
    private func isRing(_ layer: Int) -> Bool { slots[layer] < capacity }

    /// Makes positions `0..<positions` writable in every layer, committing memory if needed, or
    /// throws when the context cannot be reserved or the machine lacks the memory. Cheap when
    /// the positions are already committed.
    public func reserve(upTo positions: Int) throws(KVCacheError) {
        precondition(positions >= 0 && positions <= capacity, "position \(positions) outside the cache (capacity \(capacity))")
        guard positions > committed else { return }
        guard region != nil else { throw .cannotReserve(contextSize: capacity, contextBytes: regionBytes) }
        let available = availableMemory()
        // Doubling keeps commits rare; when the doubled run does not fit, commit just what is asked.
        var target = min(capacity, max(positions, 2 * committed, Self.minimumCommit))
        if extraBytes(to: target) > available { target = positions }
        let needed = extraBytes(to: target)
        guard needed <= available else {
            throw .outOfMemory(positions: positions, neededBytes: needed, availableBytes: available)
        }
        for layer in 0..<layers {
            guard commitRows(layer, from: min(committed, slots[layer]), to: min(target, slots[layer])) else {
                throw .outOfMemory(positions: positions, neededBytes: needed, availableBytes: available)
            }
        }
        committed = target
    }

    /// Makes rows `from..<to` of `layer`'s keys and values writable; false when the kernel will
    /// not charge the memory (ENOMEM under strict overcommit).
    private func commitRows(_ layer: Int, from: Int, to: Int) -> Bool {
        let a = committedBytes(from), b = committedBytes(to)
        guard b > a, let region else { return true }
        for half in [layer, layers + layer] where mprotect(region + half * layerBytes + a, b - a, PROT_READ | PROT_WRITE) != 0 {
            return false
        }
        return true
    }

    /// Page-rounded bytes of one layer's first `positions` rows.
    private func committedBytes(_ positions: Int) -> Int {
        min(layerBytes, (positions * rowBytes + pageBytes - 1) / pageBytes * pageBytes)
    }

    /// Memory committing up to `positions` adds, over all layers.
    private func extraBytes(to positions: Int) -> Int {
        slots.reduce(0) { $0 + 2 * (committedBytes(min(positions, $1)) - committedBytes(min(committed, $1))) }
    }

    /// Forgets every position at or after `position`, and returns how many positions are kept:
    /// `min(count, position)`, or 0 when a windowed layer no longer holds the last window − 1
    /// positions before it (they were moved out to make room), so the caller must run everything
    /// again from position 0.
    @discardableResult
    public func truncate(to position: Int) -> Int {
        precondition(position >= 0)
        count = min(count, position)
        for layer in 0..<layers where isRing(layer) && count > 0 && max(0, count - windows[layer] + 1) < offsets[layer] {
            count = 0
        }
        if count == 0 { offsets = offsets.map { _ in 0 } }
        return count
    }

    /// Marks positions up to `position` (exclusive) as filled, after every layer stored them.
    public func commit(upTo position: Int) {
        precondition(position <= committed)
        count = max(count, position)
    }

    /// Start of `layer`'s key rows (`values: false`) or value rows: row 0, position `offsets[layer]`.
    private func base(_ layer: Int, values: Bool) -> UnsafeMutablePointer<UInt8> {
        (region! + (values ? layers + layer : layer) * layerBytes).assumingMemoryBound(to: UInt8.self)
    }

    /// Where position 0 of `layer` would be: the kernels address position p at `p × rowBytes`
    /// from it and only touch positions the layer holds (≥ its offset), which lie in its rows.
    private func positionZero(_ layer: Int, values: Bool) -> UnsafeMutablePointer<UInt8> {
        base(layer, values: values) - offsets[layer] * rowBytes
    }

    /// Makes room in windowed `layer` for positions `first..<end`: when they run past its last
    /// row, the window − 1 positions before `first` (all its attention will read) move to row 0;
    /// rows are added if the batch alone is longer than the layer's rows.
    private func makeRoom(_ layer: Int, first: Int, end: Int) {
        precondition(first >= offsets[layer], "position \(first) was already dropped from windowed layer \(layer)")
        guard end - offsets[layer] > slots[layer] else { return }
        let keep = max(offsets[layer], first - windows[layer] + 1)
        let rows = max(0, min(first, offsets[layer] + slots[layer]) - keep)
        for values in [false, true] {
            let b = base(layer, values: values)
            memmove(b, b + (keep - offsets[layer]) * rowBytes, rows * rowBytes)
        }
        offsets[layer] = keep
        if end - keep > slots[layer] {
            guard commitRows(layer, from: min(committed, slots[layer]), to: min(committed, end - keep)) else {
                fatalError("KV cache: out of memory growing windowed layer \(layer) to \(end - keep) rows")
            }
            slots[layer] = end - keep
        }
    }

    /// `positions` as the C kernels' int64 array, in place (Int is 64-bit on every platform the
    /// package builds for), so neither a store nor an attention call copies or allocates.
    private func withInt64(_ positions: [Int], _ body: (UnsafePointer<Int64>?) -> Void) {
        positions.withUnsafeBufferPointer { p in p.withMemoryRebound(to: Int64.self) { body($0.baseAddress) } }
    }

    /// Stores rows `0..<rows` of `k` and `v` (width kvDim) at `positions` for `layer` with the
    /// context's row encoder, the rows split over its threads when there are many (prefill).
    public func store(layer: Int, keys k: Matrix, values v: Matrix, rows: Int, positions: [Int], context: ExecutionContext) {
        precondition(k.columns == kvDim && v.columns == kvDim && rows <= k.rows && rows <= v.rows && positions.count >= rows)
        var end = 0, first = Int.max
        for p in positions.prefix(rows) {
            precondition(p >= 0 && p < capacity, "position \(p) outside the cache (capacity \(capacity))")
            end = max(end, p + 1)
            first = min(first, p)
        }
        if end > committed {
            // Callers that did not `reserve` ahead (the library's own loops) cannot handle an error
            // here; this stops with the same message instead of faulting on unmapped memory.
            do { try reserve(upTo: end) } catch { fatalError("KV cache: \(error)") }
        }
        if isRing(layer) && rows > 0 { makeRoom(layer, first: first, end: end) }
        withInt64(positions) { pos in
            ck_kv_store_rows(format.ck, k.base, v.base, Int64(rows), Int64(kvDim), pos,
                             positionZero(layer, values: false), positionZero(layer, values: true), Int64(rowBytes),
                             context.ckThreads, context.ckPath)
        }
    }

    /// Causal (optionally sliding-window) attention for rows `0..<rows` of `q`
    /// (`[rows][heads × headDim]`, already scaled) against this layer's cache; query row r sits at
    /// `positions[r]` and sees positions `max(0, p − window + 1) … p`. Grouped-query: query head h
    /// reads KV head h / (heads / kvHeads). Writes `out` `[rows][heads × headDim]`; `kind` says
    /// whether the rows are prompt rows or decoded ones (each row's bits depend on it, never on
    /// the other rows). `scratch` holds each thread's working floats (`ck_attention_scratch_floats`,
    /// grown here when too small); the kernels run on `context`'s threads and kernel path.
    public func attention(layer: Int, queries q: Matrix, rows: Int, positions: [Int], heads: Int, headDim: Int,
                          window: Int?, kind: RowKind, into out: Matrix, scratch: inout [Float], context: ExecutionContext) {
        checkAttention(layer: layer, queries: q, rows: rows, positions: positions, heads: heads, headDim: headDim,
                       window: window, out: out)
        let stride = Self.growScratch(&scratch, Int(ck_attention_scratch_floats(Int64(committed), Int64(heads), Int64(headDim))), context)
        withInt64(positions) { pos in
            scratch.withUnsafeMutableBufferPointer { w in
                var d = attentionDesc(layer: layer, queries: q, rows: rows, positions: pos, heads: heads, headDim: headDim,
                                      window: window, kind: kind, out: out, scratch: w.baseAddress, stride: stride)
                ck_attention(&d, context.ckThreads, context.ckPath)
            }
        }
    }

    /// Grows `scratch` to `stride` floats per thread of `context`; returns `stride`. Sized for the
    /// committed positions rather than the capacity, so a huge context costs no scratch until it
    /// fills; it grows only when the commit doubles.
    private static func growScratch(_ scratch: inout [Float], _ stride: Int, _ context: ExecutionContext) -> Int {
        let threads = Int(context.ckThreads)
        if scratch.count < threads * stride { scratch = [Float](repeating: 0, count: threads * stride) }
        return stride
    }

    /// The kernel's description of an attention call over this cache's `layer`.
    private func attentionDesc(layer: Int, queries q: Matrix, rows: Int, positions: UnsafePointer<Int64>?, heads: Int,
                               headDim: Int, window: Int?, kind: RowKind, out: Matrix, scratch: UnsafeMutablePointer<Float>?,
                               stride: Int) -> ck_attention_desc {
        ck_attention_desc(
            q: q.base, q_stride: Int64(q.columns), k: UnsafePointer(positionZero(layer, values: false)),
            v: UnsafePointer(positionZero(layer, values: true)), row_bytes: Int64(rowBytes), format: format.ck,
            positions: positions, rows: Int64(rows), heads: Int64(heads), kv_heads: Int64(kvDim / headDim),
            head_dim: Int64(headDim), window: Int64(window ?? 0), out: out.base, out_stride: Int64(out.columns),
            scratch: scratch, scratch_stride: Int64(stride), kind: kind.ck)
    }

    /// One sequence's rows in a batched attention call: all its `queries` rows at `positions`,
    /// against `cache`, into `out` (the arguments of the one-cache `attention`).
    public struct AttentionPart {
        let cache: KVCache
        let queries: Matrix, rows: Int, positions: [Int], kind: RowKind, out: Matrix

        public init(cache: KVCache, queries: Matrix, rows: Int, positions: [Int], kind: RowKind, out: Matrix) {
            (self.cache, self.queries, self.rows, self.positions, self.kind, self.out) = (cache, queries, rows, positions, kind, out)
        }
    }

    /// `attention` of several sequences' rows, each against its own cache, in one kernel call:
    /// each part's output is the bits its own call gives, and the decoded rows of a short fp16
    /// context share one parallel region instead of one each.
    public static func attention(_ parts: [AttentionPart], layer: Int, heads: Int, headDim: Int, window: Int?,
                                 scratch: inout [Float], context: ExecutionContext) {
        precondition(!parts.isEmpty)
        var stride = 0, all: [Int] = []
        for p in parts {
            p.cache.checkAttention(layer: layer, queries: p.queries, rows: p.rows, positions: p.positions, heads: heads,
                                   headDim: headDim, window: window, out: p.out)
            stride = max(stride, Int(ck_attention_scratch_floats(Int64(p.cache.committed), Int64(heads), Int64(headDim))))
            all += p.positions.prefix(p.rows)
        }
        stride = growScratch(&scratch, stride, context)
        all.withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: Int64.self) { positions in
                scratch.withUnsafeMutableBufferPointer { w in
                    var offset = 0
                    var descs = parts.map { part -> ck_attention_desc in
                        defer { offset += part.rows }
                        return part.cache.attentionDesc(layer: layer, queries: part.queries, rows: part.rows,
                                                        positions: positions.baseAddress! + offset, heads: heads, headDim: headDim,
                                                        window: window, kind: part.kind, out: part.out, scratch: w.baseAddress,
                                                        stride: stride)
                    }
                    ck_attention_batch(&descs, Int64(descs.count), context.ckThreads, context.ckPath)
                }
            }
        }
    }

    /// The preconditions of an attention call over this cache, and its read bytes counted.
    private func checkAttention(layer: Int, queries q: Matrix, rows: Int, positions: [Int], heads: Int, headDim: Int,
                                window: Int?, out: Matrix) {
        let kvHeads = kvDim / headDim
        precondition(q.columns == heads * headDim && out.columns == q.columns && heads % kvHeads == 0)
        precondition(rows <= q.rows && rows <= out.rows && positions.count >= rows)
        precondition(format.supports(headDim: headDim), "KV format \(format) needs a head dim that is a multiple of 32")
        precondition(positions.prefix(rows).allSatisfy { $0 >= 0 && $0 < committed }, "position outside the cache")
        let seen = (window ?? 0) > 0 ? window! : Int.max   // 0 is no window, as in the kernel
        if isRing(layer) {
            precondition(seen <= windows[layer], "layer \(layer) keeps a window of \(windows[layer]), attention asked for \(seen)")
            precondition(positions.prefix(rows).allSatisfy { max(0, $0 - seen + 1) >= offsets[layer] && $0 - offsets[layer] < slots[layer] },
                         "position outside windowed layer \(layer)'s rows")
        }
        for p in positions.prefix(rows) { bytesSeen += 2 * rowBytes * min(p + 1, seen) }
    }
}
