// The session's hold on its profile: evaluates it for each request and tracks which profile
// nodes are in force, to run their onActivate/onDeactivate handlers when that changes.
import Foundation

/// Resolves a session's profile. `@unchecked Sendable`: the profile and the handlers it declares
/// are not Sendable, so they are only touched under `lock`; handlers are handed to the one
/// request the session runs at a time.
final package class ProfileResolver: @unchecked Sendable {
    private let lock = NSLock()
    private let profile: any LanguageModelSession.DynamicProfile
    /// Handlers of the nodes in force at the last request, by node path.
    private var active: [String: ResolvedProfile.Lifecycle] = [:]

    package init(_ profile: any LanguageModelSession.DynamicProfile) {
        self.profile = profile
    }

    /// Evaluates the profile's body (which may read session properties in `values`).
    package func resolve(values: SessionPropertyValues) -> ResolvedProfile {
        lock.withLock {
            var resolution = ProfileResolution(values: values)
            resolution.add(profile, path: "")
            return resolution.profile
        }
    }

    /// Makes `resolved` the profile in force; returns the handlers to run: onDeactivate of nodes
    /// no longer present, then onActivate of nodes that were not present before.
    func transition(to resolved: ResolvedProfile) -> [@isolated(any) () async -> Void] {
        lock.withLock {
            let gone = active.filter { resolved.lifecycle[$0.key] == nil }.sorted { $0.key < $1.key }
            let new = resolved.lifecycle.filter { active[$0.key] == nil }.sorted { $0.key < $1.key }
            active = resolved.lifecycle
            return gone.flatMap(\.value.deactivate) + new.flatMap(\.value.activate)
        }
    }
}
