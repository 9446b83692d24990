// The node the built-in profile modifiers (`.temperature(_:)`, `.onPrompt(_:)`, …) produce: it
// changes the resolved profile, then resolves the profile it wraps.

/// A profile with one setting applied. The setting is applied before the wrapped profile is
/// resolved, so when the same setting is applied twice the innermost one wins (as in SwiftUI).
struct ProfileSetting<Content: LanguageModelSession.DynamicProfile>: LanguageModelSession.DynamicProfile, PrimitiveProfile {
    let content: Content
    /// Changes the resolved profile; the argument is this node's path (its identity).
    let apply: (inout ResolvedProfile, String) -> Void

    var body: Never { fatalError("ProfileSetting has no body") }

    package func resolve(into resolution: inout ProfileResolution, path: String) {
        apply(&resolution.profile, path)
        resolution.add(content, path: path + "/setting")
    }
}

extension LanguageModelSession.DynamicProfile {
    /// This profile with `apply` applied when it is resolved.
    func setting(_ apply: @escaping (inout ResolvedProfile, String) -> Void) -> ProfileSetting<Self> {
        ProfileSetting(content: self, apply: apply)
    }
}
