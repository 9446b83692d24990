import Testing
@testable import Engine

/// Sliding-window layers keep only their window plus one batch of rows: attention over them is
/// bit-identical to a cache that holds the whole context (same kernel, same rows, only where the
/// rows live differs), they hold less memory, and a rollback past what they dropped empties the
/// cache instead of attending over overwritten rows.
@Suite struct KVCacheWindowTests {
    static let kvDim = 64, heads = 4, headDim = 32, window = 40, maxBatch = 16, capacity = 1000

    /// Deterministic values in [-1, 1) for row `seed`.
    private func row(_ seed: Int, width: Int) -> [Float] {
        (0..<width).map { i in
            var x = UInt64(seed &* 1_000_003 &+ i &* 7919) &* 6364136223846793005 &+ 1442695040888963407
            x ^= x >> 29
            return Float(x % 20011) / 10005.5 - 1
        }
    }

    /// Layer 0 full, layer 1 windowed (in `ring`; `full` holds every position in both).
    private func caches(_ format: KVCacheFormat) -> (ring: KVCache, full: KVCache) {
        (KVCache(layers: 2, capacity: Self.capacity, kvDim: Self.kvDim, format: format, windows: [0, Self.window],
                 maxBatch: Self.maxBatch),
         KVCache(layers: 2, capacity: Self.capacity, kvDim: Self.kvDim, format: format))
    }

    /// Stores positions `start..<start + n` in both caches (every layer), attends from them, and
    /// returns whether every output matched bit for bit.
    private func step(_ ring: KVCache, _ full: KVCache, start: Int, n: Int, threads: Int) -> Bool {
        let k = Matrix(rows: n, columns: Self.kvDim), v = Matrix(rows: n, columns: Self.kvDim)
        let q = Matrix(rows: n, columns: Self.heads * Self.headDim)
        for r in 0..<n {
            k.setRow(r, row(3 * (start + r), width: Self.kvDim))
            v.setRow(r, row(3 * (start + r) + 1, width: Self.kvDim))
            q.setRow(r, row(3 * (start + r) + 2, width: Self.heads * Self.headDim))
        }
        let positions = Array(start..<start + n)
        var same = true, scratch: [Float] = []
        let context = ExecutionContext(threads: threads, maxRows: 1, maxK: 32)
        for cache in [ring, full] {
            try? cache.reserve(upTo: start + n)
            for layer in 0..<2 { cache.store(layer: layer, keys: k, values: v, rows: n, positions: positions, context: context) }
            cache.commit(upTo: start + n)
        }
        let kind: RowKind = n == 1 ? .decoded : .prompt
        for (layer, window) in [(0, nil), (1, Self.window)] {
            let a = Matrix(rows: n, columns: q.columns), b = Matrix(rows: n, columns: q.columns)
            ring.attention(layer: layer, queries: q, rows: n, positions: positions, heads: Self.heads, headDim: Self.headDim,
                           window: window, kind: kind, into: a, scratch: &scratch, context: context)
            full.attention(layer: layer, queries: q, rows: n, positions: positions, heads: Self.heads, headDim: Self.headDim,
                           window: window, kind: kind, into: b, scratch: &scratch, context: context)
            for r in 0..<n where a.copyRow(r) != b.copyRow(r) { same = false }
        }
        return same
    }

    /// Prefill batches of every size up to `maxBatch` and single decode rows, past many slides.
    @Test(arguments: [KVCacheFormat.f16, .q8_0, .mxfp8_e4m3], [1, 2])
    func windowedLayerAttendsLikeTheWholeContext(_ format: KVCacheFormat, threads: Int) throws {
        let (ring, full) = caches(format)
        var start = 0, mismatches = 0
        for n in [16, 5, 1, 1, 16, 16, 7, 1, 16, 3] + [Int](repeating: 1, count: 60) + [16, 16, 16, 2, 16] {
            if !step(ring, full, start: start, n: n, threads: threads) { mismatches += 1 }
            start += n
        }
        #expect(mismatches == 0)
        #expect(ring.offsets[1] > 0 && ring.offsets[0] == 0)
        #expect(ring.slots[1] == Self.window - 1 + Self.maxBatch)
        #expect(ring.memoryBytes < full.memoryBytes)
    }

    /// A batch longer than `maxBatch` grows the windowed rows instead of overwriting its window.
    @Test func aLongerBatchGrowsTheWindowedRows() {
        let (ring, full) = caches(.f16)
        #expect(step(ring, full, start: 0, n: 100, threads: 2))
        #expect(step(ring, full, start: 100, n: 70, threads: 2))
        #expect(ring.slots[1] >= Self.window - 1 + 70)
        #expect(step(ring, full, start: 170, n: 1, threads: 2))
    }

    /// Rolling back keeps the positions when the windowed layer still holds the window before
    /// the new end, and otherwise empties the cache; either way what follows matches a full cache
    /// rolled back the same way (re-run from 0 when emptied).
    @Test func rollbackPastDroppedRowsStartsOver() {
        let (ring, full) = caches(.q8_0)
        for p in 0..<300 { _ = step(ring, full, start: p, n: 1, threads: 1) }
        #expect(ring.truncate(to: 299) == 299)
        full.truncate(to: 299)
        #expect(step(ring, full, start: 299, n: 16, threads: 2))
        // Position 100's window (61...99) was moved out long ago: nothing can be kept.
        #expect(ring.truncate(to: 100) == 0 && ring.count == 0 && ring.offsets == [0, 0])
        full.truncate(to: 0)
        var start = 0, same = true
        for n in [16, 16, 16, 1, 1, 16] {
            same = step(ring, full, start: start, n: n, threads: 2) && same
            start += n
        }
        #expect(same)
    }
}
