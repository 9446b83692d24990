import Testing
@testable import Engine
import GGUF

/// Paths of the fetched real models (`make models`).
enum RealModels {
    static let root = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
    static let smollm = "/\(root)/Models/SmolLM2-135M-Instruct.Q4_1.gguf"
    static let gemma = "/\(root)/Models/gemma-3-270m-q4_k_m.gguf"
}

@Suite struct RealModelTensorTests {
    /// Every tensor of both models decodes to finite values: catches a wrong block layout that a
    /// handful of fixture rows might miss (a NaN/inf scale or an out-of-range read).
    @Test(arguments: [RealModels.smollm, RealModels.gemma])
    func everyTensorDequantizesToFiniteValues(_ path: String) throws {
        let file = try GGUFFile(path: path)
        var checked = 0
        for tensor in file.tensors {
            let values = try dequantizeRows(tensor, in: file)
            #expect(values.count == tensor.elementCount)
            let bad = values.firstIndex { !$0.isFinite }
            #expect(bad == nil, "\(tensor.name): non-finite value at \(bad ?? -1)")
            checked += 1
        }
        #expect(checked == file.tensors.count)
    }

    /// `--weights` conversion at load (each thread converting rows through fp32 scratch of its
    /// own) gives the bytes of dequantizing the tensor and quantizing each row alone: for the
    /// smallest matrix of each of Gemma's types, to every target, whole and as a row range (a
    /// fused projection's view).
    @Test(arguments: [WeightFormat.mxfp8_e4m3, .mxint8, .mxfp4, .f16, .bf16])
    func conversionAtLoadEqualsDequantizeThenQuantize(_ target: WeightFormat) throws {
        let file = try GGUFFile(path: RealModels.gemma)
        let matrices = file.tensors.filter { $0.shape.count == 2 && $0.shape[1] >= 64 }
        let smallest = Dictionary(grouping: matrices, by: \.type).values.map { $0.min { $0.elementCount < $1.elementCount }! }
        #expect(smallest.count >= 2)
        for tensor in smallest {
            let (k, n) = (tensor.shape[0], tensor.shape[1])
            let values = try dequantizeRows(tensor, in: file)
            // One row at a time, each on its own: no row ranges or threads to get wrong.
            let oracle = try (0..<n).flatMap { r in
                try WeightMatrix(quantizing: Array(values[(r * k)..<((r + 1) * k)]), n: 1, k: k, as: target).dequantized()
            }
            let whole = try WeightMatrix(tensor: tensor, in: file, convertingTo: target).dequantized()
            // Counted, not compared as arrays: a failing array comparison renders a diff of
            // hundreds of thousands of values.
            #expect(zip(whole, oracle).filter { $0.bitPattern != $1.bitPattern }.count == 0 && whole.count == oracle.count,
                    "\(tensor.name) \(tensor.type) -> \(target)")
            let rows = 16..<(n - 17)
            let part = try WeightMatrix(tensor: tensor, in: file, rows: rows, convertingTo: target).dequantized()
            let expected = oracle[(rows.lowerBound * k)..<(rows.upperBound * k)]
            #expect(zip(part, expected).filter { $0.bitPattern != $1.bitPattern }.count == 0 && part.count == expected.count,
                    "\(tensor.name) rows \(rows) -> \(target)")
        }
    }
}
