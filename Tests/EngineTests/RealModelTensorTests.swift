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
}
