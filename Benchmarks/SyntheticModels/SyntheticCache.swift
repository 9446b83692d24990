#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where synthetic models are kept: written once, reused by every later run.
public enum SyntheticCache {
    /// Bumped whenever the bytes a spec produces change, so stale files are not reused: 3 for
    /// plans with Q5_1 tensors (formerly written as Q8_0), 2 for plans with Q5_K tensors (formerly
    /// Q6_K), 1 for every other plan.
    static func generation(of model: SyntheticModel) -> Int {
        model.tensors.contains { $0.type == .q5_1 } ? 3 : model.tensors.contains { $0.type == .q5_K } ? 2 : 1
    }

    /// `$XDG_CACHE_HOME/quanta/synthetic`, else `~/.cache/quanta/synthetic`.
    public static var defaultDirectory: String {
        if let xdg = getenv("XDG_CACHE_HOME").map({ String(cString: $0) }), !xdg.isEmpty { return xdg + "/quanta/synthetic" }
        let home = getenv("HOME").map { String(cString: $0) } ?? "."
        return home + "/.cache/quanta/synthetic"
    }

    /// The file of `model` in `directory`.
    public static func path(of model: SyntheticModel, in directory: String) -> String {
        "\(directory)/\(model.shape.name)-\(model.mix.rawValue)-g\(generation(of: model)).gguf"
    }

    /// The cached file of `model`, written first if missing (to a temporary name, renamed when
    /// complete, so an interrupted write is never mistaken for a model). `written` is true when
    /// this call wrote it.
    public static func materialize(_ model: SyntheticModel, in directory: String) throws -> (path: String, written: Bool) {
        let path = path(of: model, in: directory)
        if access(path, R_OK) == 0 { return (path, false) }
        try makeDirectories(directory)
        let partial = "\(path).partial-\(getpid())"
        do {
            try model.write(to: partial)
        } catch {
            unlink(partial)
            throw error
        }
        guard rename(partial, path) == 0 else { throw CacheError(path: path, reason: String(cString: strerror(errno))) }
        return (path, true)
    }

    private static func makeDirectories(_ directory: String) throws {
        var prefix = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw CacheError(path: prefix, reason: String(cString: strerror(errno)))
            }
        }
    }

    struct CacheError: Error, CustomStringConvertible {
        let path: String, reason: String
        var description: String { "cannot create \(path): \(reason)" }
    }
}
