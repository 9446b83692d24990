import Engine
import GGUF

/// Why a model could not be built from a GGUF file.
public enum ModelError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `general.architecture` names an architecture without an implementation here.
    case unsupportedArchitecture(String)
    /// A required hyper-parameter key is absent or has the wrong type.
    case badHyperparameter(key: String, reason: String)
    /// A required tensor is absent.
    case missingTensor(String)
    /// A tensor's shape does not match the hyper-parameters.
    case shapeMismatch(tensor: String, expected: [Int], found: [Int])
    /// The engine cannot use a tensor (unsupported type, not a matrix).
    case engine(EngineError)

    public var description: String {
        switch self {
        case let .unsupportedArchitecture(a): return "unsupported architecture \"\(a)\" (supported: \(modelFamilies.map { $0.architecture }.sorted().joined(separator: ", ")))"
        case let .badHyperparameter(key, reason): return "hyper-parameter \(key): \(reason)"
        case let .missingTensor(name): return "missing tensor \(name)"
        case let .shapeMismatch(tensor, expected, found): return "tensor \(tensor): expected shape \(expected), found \(found)"
        case let .engine(e): return e.description
        }
    }
}
