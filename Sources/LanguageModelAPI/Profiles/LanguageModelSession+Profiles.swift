// Sessions configured by a dynamic profile or dynamic instructions, and the request path's
// one entry into the profile machinery: `resolveProfile()`.
import Foundation

extension LanguageModelSession {
    /// A session configured by `profile`, re-evaluated at the start of every request: its
    /// instructions, tools, model, option overrides, history transform and callbacks apply to that
    /// request. `history` is the conversation so far (a leading instructions entry in it is
    /// replaced by the profile's).
    ///
    /// The profile must name a model with `.model(_:)` (it does not fall back to
    /// `SystemLanguageModel.default`); a request without one throws `NoModelError`.
    public convenience init(profile: sending some DynamicProfile, history: some Collection<Transcript.Entry> = []) {
        self.init(model: nil, tools: [], transcript: Transcript(entries: history), historyTransform: nil,
                  profile: ProfileResolver(profile))
    }

    /// The configuration of the next request: the profile evaluated now, or the session's fixed
    /// tools when it has no profile.
    func resolveProfile() -> ResolvedProfile {
        profile?.resolve(values: properties) ?? ResolvedProfile(tools: tools)
    }

    /// A request was made on a profile session whose profile names no model.
    public struct NoModelError: Swift.Error, LocalizedError, Sendable {
        /// What went wrong, in one sentence.
        public var errorDescription: String? {
            "The session's profile names no model; apply .model(_:) to it or create the session with a model."
        }
    }
}
