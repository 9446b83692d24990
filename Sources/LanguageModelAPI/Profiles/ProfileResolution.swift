// Walks a profile tree into a `ResolvedProfile`. Each node has a path (its position in the tree,
// including the branches taken), which identifies it across requests for onActivate/onDeactivate.

/// A profile the session resolves itself instead of evaluating a body.
package protocol PrimitiveProfile {
    func resolve(into resolution: inout ProfileResolution, path: String)
}

/// The state of one walk over a profile tree.
package struct ProfileResolution {
    var profile = ResolvedProfile.dynamic
    /// Binds `@SessionProperty` wrappers met on the way.
    let values: SessionPropertyValues

    /// Adds `profile` at `path`: a primitive resolves itself, anything else through its body.
    mutating func add(_ profile: any LanguageModelSession.DynamicProfile, path: String) {
        bindSessionProperties(of: profile, to: values)
        if let primitive = profile as? any PrimitiveProfile {
            primitive.resolve(into: &self, path: path)
        } else {
            add(profile.body, path: path + "/" + String(describing: type(of: profile)))
        }
    }
}
