// Reusable profile modifiers: a modifier's body wraps the profile it is applied to (its
// `content`) in other profiles and modifiers.

extension LanguageModelSession {
    /// A reusable change to a profile, applied with `.modifier(_:)`.
    public protocol DynamicProfileModifier {
        /// The profile the modifier turns its content into.
        associatedtype Body: LanguageModelSession.DynamicProfile
        /// Wraps `content`, the profile the modifier is applied to.
        @LanguageModelSession.DynamicProfileBuilder func body(content: Content) -> Body
        /// The profile the modifier is applied to.
        typealias Content = LanguageModelSession.DynamicProfileModifierContent<Self>
    }

    /// The profile a modifier is applied to, as seen from the modifier's body.
    public struct DynamicProfileModifierContent<Modifier: LanguageModelSession.DynamicProfileModifier>: LanguageModelSession.DynamicProfile {
        let content: any LanguageModelSession.DynamicProfile

        /// Never evaluated: the session resolves the modified profile.
        public var body: Never { fatalError("DynamicProfileModifierContent has no body") }
    }

    /// A profile with a modifier applied.
    public struct ModifiedDynamicProfile<Content: LanguageModelSession.DynamicProfile,
                                         Modifier: LanguageModelSession.DynamicProfileModifier>: LanguageModelSession.DynamicProfile {
        let content: Content
        let modifier: Modifier

        /// Never evaluated: the session resolves the modifier's body.
        public var body: Never { fatalError("ModifiedDynamicProfile has no body") }
    }
}

extension LanguageModelSession.DynamicProfileModifier {
    /// `DynamicProfile` inside a modifier.
    public typealias DynamicProfile = LanguageModelSession.DynamicProfile
}

extension LanguageModelSession.DynamicProfile {
    /// This profile changed by `modifier`.
    public func modifier<Modifier: LanguageModelSession.DynamicProfileModifier>(_ modifier: Modifier) -> some LanguageModelSession.DynamicProfile {
        LanguageModelSession.ModifiedDynamicProfile(content: self, modifier: modifier)
    }
}

extension LanguageModelSession.DynamicProfileModifierContent: PrimitiveProfile {
    package func resolve(into resolution: inout ProfileResolution, path: String) {
        resolution.add(content, path: path + "/content")
    }
}

extension LanguageModelSession.ModifiedDynamicProfile: PrimitiveProfile {
    package func resolve(into resolution: inout ProfileResolution, path: String) {
        bindSessionProperties(of: modifier, to: resolution.values)
        let body = modifier.body(content: LanguageModelSession.DynamicProfileModifierContent(content: content))
        resolution.add(body, path: path + "/" + String(describing: Modifier.self))
    }
}
