// Process-wide sharing of loaded files: every `LocalLanguageModel` of one file (and weight mode)
// uses one `LoadedModel`. Concurrent loads of the same file wait for the first one instead of
// mapping and repacking the file twice; failed loads are not remembered, so a retry tries again.
import LanguageModelAPI
import Architectures

/// The process-wide cache of loaded model files.
actor LoadedModelStore {
    static let shared = LoadedModelStore()

    private struct Key: Hashable {
        let path: String
        let mode: String
    }

    private var loads: [Key: Task<LoadedModel, any Error>] = [:]
    /// Loads actually started (coalesced requests do not count); for tests.
    private(set) var loadsStarted = 0

    /// The loaded model of `path`, loading it unless a load is done or under way.
    package func model(path: String, mode: WeightMode) async throws -> LoadedModel {
        let key = Key(path: path, mode: "\(mode)")
        if let load = loads[key] { return try await load.value }
        // Detached: the load is CPU work (mmap + repacking) that must not run on this actor.
        let load = Task.detached { try LoadedModel(path: path, mode: mode) }
        loads[key] = load
        loadsStarted += 1
        do {
            return try await load.value
        } catch {
            if loads[key] == load { loads[key] = nil }
            throw error
        }
    }

    /// Drops the cached loads of `path` (every mode). Models already holding one keep it;
    /// the memory is freed when the last one goes.
    func evict(path: String) {
        loads = loads.filter { $0.key.path != path }
    }
}
