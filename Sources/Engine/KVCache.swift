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

    public var description: String { rawValue }
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

    public init(layers: Int, capacity: Int, kvDim: Int, format: KVCacheFormat = .f16) {
        precondition(layers > 0 && capacity > 0 && kvDim > 0)
        precondition(format.supports(width: kvDim), "KV format \(format) needs a width that is a multiple of 32")
        self.layers = layers
        self.capacity = capacity
        self.kvDim = kvDim
        self.format = format
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

    /// Bytes of memory the cache holds (committed positions of every layer, keys and values).
    public var memoryBytes: Int { 2 * layers * committedBytes(committed) }

    /// Makes positions `0..<positions` writable in every layer, committing memory if needed, or
    /// throws when the context cannot be reserved or the machine lacks the memory. Cheap when
    /// the positions are already committed.
    public func reserve(upTo positions: Int) throws(KVCacheError) {
        precondition(positions >= 0 && positions <= capacity, "position \(positions) outside the cache (capacity \(capacity))")
        guard positions > committed else { return }
        guard let region else { throw .cannotReserve(contextSize: capacity, contextBytes: regionBytes) }
        let available = availableMemory()
        // Doubling keeps commits rare; when the doubled run does not fit, commit just what is asked.
        var target = min(capacity, max(positions, 2 * committed, Self.minimumCommit))
        if extraBytes(to: target) > available { target = positions }
        let needed = extraBytes(to: target)
        guard needed <= available else {
            throw .outOfMemory(positions: positions, neededBytes: needed, availableBytes: available)
        }
        let from = committedBytes(committed), to = committedBytes(target)
        for half in 0..<2 * layers {
            // Fails with ENOMEM when the kernel will not charge the memory (strict overcommit).
            guard mprotect(region + half * layerBytes + from, to - from, PROT_READ | PROT_WRITE) == 0 else {
                throw .outOfMemory(positions: positions, neededBytes: needed, availableBytes: available)
            }
        }
        committed = target
    }

    /// Page-rounded bytes of one layer's first `positions` rows.
    private func committedBytes(_ positions: Int) -> Int {
        min(layerBytes, (positions * rowBytes + pageBytes - 1) / pageBytes * pageBytes)
    }

    /// Memory committing up to `positions` adds, over all layers.
    private func extraBytes(to positions: Int) -> Int {
        2 * layers * (committedBytes(positions) - committedBytes(committed))
    }

    /// Forgets every position at or after `position`.
    public func truncate(to position: Int) {
        precondition(position >= 0)
        count = min(count, position)
    }

    /// Marks positions up to `position` (exclusive) as filled, after every layer stored them.
    public func commit(upTo position: Int) {
        precondition(position <= committed)
        count = max(count, position)
    }

    /// Start of `layer`'s key rows (`values: false`) or value rows.
    private func base(_ layer: Int, values: Bool) -> UnsafeMutablePointer<UInt8> {
        (region! + (values ? layers + layer : layer) * layerBytes).assumingMemoryBound(to: UInt8.self)
    }

    /// `positions` as the C kernels' int64 array, in place (Int is 64-bit on every platform the
    /// package builds for), so neither a store nor an attention call copies or allocates.
    private func withInt64(_ positions: [Int], _ body: (UnsafePointer<Int64>?) -> Void) {
        positions.withUnsafeBufferPointer { p in p.withMemoryRebound(to: Int64.self) { body($0.baseAddress) } }
    }

    /// Stores rows `0..<rows` of `k` and `v` (width kvDim) at `positions` for `layer`, the rows
    /// split over `threads` threads when there are many (prefill).
    public func store(layer: Int, keys k: Matrix, values v: Matrix, rows: Int, positions: [Int], threads: Int = 1) {
        precondition(k.columns == kvDim && v.columns == kvDim && rows <= k.rows && rows <= v.rows && positions.count >= rows)
        var end = 0
        for p in positions.prefix(rows) {
            precondition(p >= 0 && p < capacity, "position \(p) outside the cache (capacity \(capacity))")
            end = max(end, p + 1)
        }
        if end > committed {
            // Callers that did not `reserve` ahead (the library's own loops) cannot handle an error
            // here; this stops with the same message instead of faulting on unmapped memory.
            do { try reserve(upTo: end) } catch { fatalError("KV cache: \(error)") }
        }
        withInt64(positions) { pos in
            ck_kv_store_rows(format.ck, k.base, v.base, Int64(rows), Int64(kvDim), pos,
                             base(layer, values: false), base(layer, values: true), Int64(rowBytes), Int32(threads))
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
        precondition(positions.prefix(rows).allSatisfy { $0 >= 0 && $0 < committed }, "position outside the cache")
        // Sized for the committed positions rather than the capacity, so a huge context costs no
        // scratch until it fills; it grows only when the commit doubles.
        let threads = max(1, threads), stride = Int(ck_attention_scratch_floats(Int64(committed), Int64(headDim)))
        if scratch.count < threads * stride { scratch = [Float](repeating: 0, count: threads * stride) }
        let seen = (window ?? 0) > 0 ? window! : Int.max   // 0 is no window, as in the kernel
        for p in positions.prefix(rows) { bytesSeen += 2 * rowBytes * min(p + 1, seen) }
        let k = UnsafePointer(base(layer, values: false)), v = UnsafePointer(base(layer, values: true))
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
