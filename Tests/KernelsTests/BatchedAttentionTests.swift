import CKernels
import Testing
@testable import Engine

/// `KVCache.attention` of several sequences in one kernel call (`ck_attention_batch`, a batched
/// pass's attention) gives each sequence the bits of its own call: four caches (fp16, q8_0) of
/// different lengths, one part each, mixing prompt rows and decoded rows that take the per-head
/// kernel (short fp16 contexts) and split-K (long ones, block formats), on every path and at 1
/// and 2 threads; and every path gives ref's bits. Time cap: ~2 s.
@Suite struct BatchedAttentionTests {
    static let heads = 9, kvHeads = 3, headDim = 64

    /// One sequence: its cache filled with `length` positions of gaussian keys and values, and
    /// its last `rows` positions' queries of `kind`.
    struct Sequence {
        let cache: KVCache
        let queries: Matrix
        let positions: [Int]
        let kind: RowKind

        init(length: Int, rows: Int, kind: RowKind, format: KVCacheFormat, seed: UInt64) {
            let kvDim = BatchedAttentionTests.kvHeads * BatchedAttentionTests.headDim
            cache = KVCache(layers: 1, capacity: length + 1, kvDim: kvDim, format: format, maxBatch: length)
            let k = Matrix(rows: length, columns: kvDim), v = Matrix(rows: length, columns: kvDim)
            let kx = gaussians(length * kvDim, seed: seed), vx = gaussians(length * kvDim, seed: seed + 1)
            for r in 0..<length {
                k.setRow(r, Array(kx[r * kvDim..<(r + 1) * kvDim]))
                v.setRow(r, Array(vx[r * kvDim..<(r + 1) * kvDim]))
            }
            cache.store(layer: 0, keys: k, values: v, rows: length, positions: Array(0..<length),
                        context: ExecutionContext(maxRows: length, maxK: kvDim))
            cache.commit(upTo: length)
            let qDim = BatchedAttentionTests.heads * BatchedAttentionTests.headDim
            queries = Matrix(rows: rows, columns: qDim)
            let qx = gaussians(rows * qDim, seed: seed + 2, scale: 0.4)
            for r in 0..<rows { queries.setRow(r, Array(qx[r * qDim..<(r + 1) * qDim])) }
            positions = Array(length - rows..<length)
            self.kind = kind
        }
    }

    static func sequences(_ format: KVCacheFormat) -> [Sequence] {
        [Sequence(length: 40, rows: 1, kind: .decoded, format: format, seed: 1),
         Sequence(length: 100, rows: 5, kind: .prompt, format: format, seed: 11),
         Sequence(length: 300, rows: 1, kind: .decoded, format: format, seed: 21),
         Sequence(length: 7, rows: 1, kind: .decoded, format: format, seed: 31),
         Sequence(length: 130, rows: 1, kind: .decoded, format: format, seed: 41)]
    }

    /// Each sequence's output: one call each (`batched` false) or all in one batched call.
    static func outputs(_ sequences: [Sequence], batched: Bool, path: KernelPath, threads: Int) -> [[UInt32]] {
        let context = ExecutionContext(threads: threads, path: path, maxRows: 8, maxK: heads * headDim)
        let outs = sequences.map { Matrix(rows: $0.queries.rows, columns: heads * headDim) }
        var scratch: [Float] = []
        let parts = zip(sequences, outs).map { s, out in
            KVCache.AttentionPart(cache: s.cache, queries: s.queries, rows: s.queries.rows, positions: s.positions, kind: s.kind, out: out)
        }
        if batched {
            KVCache.attention(parts, layer: 0, heads: heads, headDim: headDim, window: nil, scratch: &scratch, context: context)
        } else {
            for p in parts {
                KVCache.attention([p], layer: 0, heads: heads, headDim: headDim, window: nil, scratch: &scratch, context: context)
            }
        }
        return outs.map { out in (0..<out.rows).flatMap { out.copyRow($0).map(\.bitPattern) } }
    }

    @Test(arguments: [KVCacheFormat.f16, .q8_0])
    func batchedCallGivesEachSequencesOwnBits(_ format: KVCacheFormat) {
        let sequences = Self.sequences(format)
        let ref = Self.outputs(sequences, batched: false, path: .ref, threads: 1)
        for path in [KernelPath.ref] + simdPaths {
            for threads in [1, 2] {
                let alone = Self.outputs(sequences, batched: false, path: path, threads: threads)
                let together = Self.outputs(sequences, batched: true, path: path, threads: threads)
                for i in sequences.indices {
                    #expect(together[i] == alone[i], "\(format) \(path) \(threads) threads: sequence \(i) batched differs from alone")
                    #expect(alone[i] == ref[i], "\(format) \(path) \(threads) threads: sequence \(i) differs from ref")
                }
            }
        }
    }
}
