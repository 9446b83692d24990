import Foundation
import GGUF
import Testing
@testable import Engine

/// The kernels on the real models' own tensors (skipped when a model file is absent): for every
/// weight type a model uses, the smallest 2-D tensor of that type, reference vs the dequantized
/// product and SIMD vs reference; plus SmolLM2's tied Q8_0 output head at decode shape.
@Suite struct RealModelMatmulTests {
    static let models = ["SmolLM2-135M-Instruct.Q4_1.gguf", "gemma-3-270m-q4_k_m.gguf"]

    static func modelPath(_ name: String) -> String? {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path = here.appendingPathComponent("Models").appendingPathComponent(name).path
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    @Test(arguments: models)
    func smallestTensorOfEachType(_ model: String) throws {
        guard let path = Self.modelPath(model) else { return }
        let file = try GGUFFile(path: path)
        var seen: [GGMLType: GGUFTensorInfo] = [:]
        for t in file.tensors where t.shape.count == 2 && WeightFormat(t.type) != nil && t.type != .f32 {
            if let s = seen[t.type], s.elementCount <= t.elementCount { continue }
            seen[t.type] = t
        }
        #expect(!seen.isEmpty)
        for t in seen.values.sorted(by: { $0.name < $1.name }) {
            let w = try WeightMatrix(tensor: t, in: file)
            #expect(w.k == t.shape[0] && w.n == t.shape[1])
            let m = 2
            let x = gaussians(m * w.k, seed: 9)
            let (expected, bound) = naiveWithBound(w.dequantized(), n: w.n, k: w.k, x, m: m, scheme: w.format.activationQuantization)
            let ref = runMatmul(w, x, m: m, path: .ref)
            let bad = (0..<(m * w.n)).filter { abs(Double(ref[$0]) - expected[$0]) > bound[$0] }
            #expect(bad.isEmpty, "\(model) \(t.name) \(t.type): \(bad.count) outputs outside the bound")
            for path in simdPaths {
                for mm in [1, 5] {
                    let xs = Array(x[0..<(min(mm, m) * w.k)]) + gaussians(max(0, mm - m) * w.k, seed: 10)
                    let r = runMatmul(w, xs, m: mm, path: .ref)
                    let y = runMatmul(w, xs, m: mm, path: path, threads: 2)
                    // A count, not the arrays: a diff of two long arrays takes swift-testing minutes.
                    let differ = (0..<y.count).filter { y[$0].bitPattern != r[$0].bitPattern }.count
                    #expect(differ == 0, "\(model) \(t.name) \(path) m=\(mm): \(differ) of \(y.count) differ")
                }
            }
        }
    }

    @Test func smolLMTiedHeadDecode() throws {
        guard let path = Self.modelPath(Self.models[0]) else { return }
        let file = try GGUFFile(path: path)
        let t = try file.requireTensor("token_embd.weight")
        let w = try WeightMatrix(tensor: t, in: file)
        #expect(w.format == .q8_0 && w.k == 576 && w.n == 49152)
        let x = gaussians(w.k, seed: 4)
        let ref = runMatmul(w, x, m: 1, path: .ref)
        for path in simdPaths {
            let y = runMatmul(w, x, m: 1, path: path, threads: 2)
            #expect((0..<y.count).allSatisfy { y[$0].bitPattern == ref[$0].bitPattern }, "\(path)")
        }
        // Spot-check rows against the dequantized product.
        let rows = [0, 1, 12345, 49151]
        let wf = try dequantizeRows(t, in: file, rows: 0..<1) + dequantizeRows(t, in: file, rows: 1..<2)
            + dequantizeRows(t, in: file, rows: 12345..<12346) + dequantizeRows(t, in: file, rows: 49151..<49152)
        let (expected, bound) = naiveWithBound(wf, n: rows.count, k: w.k, x, m: 1, scheme: .q8_0)
        for (i, r) in rows.enumerated() { #expect(abs(Double(ref[r]) - expected[i]) <= bound[i]) }
    }
}
