import Engine
import GGUF

/// Reads hyper-parameters and tensors for one architecture, turning every failure into a
/// `ModelError` that names the key or tensor.
struct WeightLoader {
    let file: GGUFFile
    let arch: String
    let mode: WeightMode

    func int(_ key: String, default value: Int? = nil) throws(ModelError) -> Int {
        let full = "\(arch).\(key)"
        guard let v = file.metadata[full] else {
            if let value { return value }
            throw .badHyperparameter(key: full, reason: "missing")
        }
        guard let i = v.intValue, i > 0 else { throw .badHyperparameter(key: full, reason: "not a positive integer") }
        return i
    }

    /// A string key (`rope.scaling.type`), nil when absent.
    func string(_ key: String) throws(ModelError) -> String? {
        let full = "\(arch).\(key)"
        guard let v = file.metadata[full] else { return nil }
        guard case let .string(s) = v else { throw .badHyperparameter(key: full, reason: "not a string") }
        return s
    }

    /// Whether the file has tensor `name`.
    func has(_ name: String) -> Bool { file.tensor(named: name) != nil }

    func float(_ key: String, default value: Float? = nil) throws(ModelError) -> Float {
        let full = "\(arch).\(key)"
        guard let v = file.metadata[full] else {
            if let value { return value }
            throw .badHyperparameter(key: full, reason: "missing")
        }
        guard let d = v.doubleValue, d.isFinite else { throw .badHyperparameter(key: full, reason: "not a number") }
        return Float(d)
    }

    /// Vocabulary size: the row count of `token_embd.weight`.
    func vocabulary() throws(ModelError) -> Int {
        guard let t = file.tensor(named: "token_embd.weight") else { throw .missingTensor("token_embd.weight") }
        guard t.shape.count == 2 else { throw .shapeMismatch(tensor: t.name, expected: [-1, -1], found: t.shape) }
        return t.shape[1]
    }

    func tensor(_ name: String, shape: [Int]) throws(ModelError) -> GGUFTensorInfo {
        guard let t = file.tensor(named: name) else { throw .missingTensor(name) }
        guard t.shape == shape else { throw .shapeMismatch(tensor: name, expected: shape, found: t.shape) }
        return t
    }

    /// A 1-D fp32 vector (norm weights), dequantized.
    func vector(_ name: String, length: Int) throws(ModelError) -> [Float] {
        let t = try tensor(name, shape: [length])
        do { return try dequantizeRows(t, in: file) } catch { throw .engine(error) }
    }

    /// `vector` when the file has the tensor, nil otherwise (optional biases and norms).
    func optionalVector(_ name: String, length: Int) throws(ModelError) -> [Float]? {
        has(name) ? try vector(name, length: length) : nil
    }

    /// Consecutive row ranges of a fused matmul weight `[inputs, Σ outputs]` as separate weights
    /// (Q/K/V of `attn_qkv`, gate/up of a fused `ffn_up`), in the order of `outputs`.
    func split(_ name: String, inputs: Int, outputs: [Int]) throws(ModelError) -> [WeightMatrix] {
        let t = try tensor(name, shape: [inputs, outputs.reduce(0, +)])
        var parts: [WeightMatrix] = [], start = 0
        for n in outputs {
            do {
                switch mode {
                case .native: parts.append(try WeightMatrix(tensor: t, in: file, rows: start..<start + n))
                case let .converted(format): parts.append(try WeightMatrix(tensor: t, in: file, rows: start..<start + n, convertingTo: format))
                }
            } catch { throw .engine(error) }
            start += n
        }
        return parts
    }

    /// A matmul weight with GGUF shape [inputs, outputs].
    func linear(_ name: String, inputs: Int, outputs: Int) throws(ModelError) -> WeightMatrix {
        let t = try tensor(name, shape: [inputs, outputs])
        do {
            switch mode {
            case .native: return try WeightMatrix(tensor: t, in: file)
            case let .converted(format): return try WeightMatrix(tensor: t, in: file, convertingTo: format)
            }
        } catch { throw .engine(error) }
    }

    func embedding(_ name: String, width: Int, vocabulary: Int) throws(ModelError) -> EmbeddingTable {
        let t = try tensor(name, shape: [width, vocabulary])
        do { return try EmbeddingTable(tensor: t, in: file) } catch { throw .engine(error) }
    }
}
