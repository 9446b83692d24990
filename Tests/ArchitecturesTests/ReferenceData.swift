import Foundation

/// llama.cpp's greedy record for one prompt (see Fixtures/README.md).
struct GreedyRecord: Decodable {
    let model: String
    let prompt_index: Int
    let prompt_ids: [Int32]
    let gen_ids: [Int32]
    let top1_top2_margin: [Float]
    let n_vocab: Int
}

enum ReferenceData {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let models = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Models")

    static func modelPath(_ key: String) -> String {
        models.appendingPathComponent(key == "smollm" ? "SmolLM2-135M-Instruct.Q4_1.gguf" : "gemma-3-270m-q4_k_m.gguf").path
    }

    static func greedy(_ model: String) throws -> [GreedyRecord] {
        let text = try String(contentsOf: fixtures.appendingPathComponent("greedy-dev.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(GreedyRecord.self, from: Data($0.utf8)) }
            .filter { $0.model == model }
    }

    static func logits(_ model: String, prompt: Int) throws -> [Float] {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("logits-dev-\(model)-\(prompt).bin"))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}

/// Index of the largest value (lowest index on ties, as llama.cpp's greedy sampling).
func argmax(_ xs: some Collection<Float>) -> Int {
    var best = 0, bestValue = -Float.infinity
    for (i, x) in xs.enumerated() where x > bestValue { best = i; bestValue = x }
    return best
}
