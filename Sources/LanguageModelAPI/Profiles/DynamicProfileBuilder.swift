// The result builder of `DynamicProfile` bodies: exactly one profile, possibly chosen by
// `if`/`else` or an availability check.

extension LanguageModelSession {
    /// Builds a profile's body.
    @resultBuilder
    public struct DynamicProfileBuilder {
        /// The body's one profile.
        public static func buildBlock<T: LanguageModelSession.DynamicProfile>(_ content: T) -> T {
            content
        }

        /// The `if` branch of an `if`/`else`.
        public static func buildEither<TrueContent: LanguageModelSession.DynamicProfile, FalseContent: LanguageModelSession.DynamicProfile>(
            first content: TrueContent) -> LanguageModelSession.ConditionalDynamicProfile<TrueContent, FalseContent> {
            LanguageModelSession.ConditionalDynamicProfile(.trueContent(content))
        }

        /// The `else` branch of an `if`/`else`.
        public static func buildEither<TrueContent: LanguageModelSession.DynamicProfile, FalseContent: LanguageModelSession.DynamicProfile>(
            second content: FalseContent) -> LanguageModelSession.ConditionalDynamicProfile<TrueContent, FalseContent> {
            LanguageModelSession.ConditionalDynamicProfile(.falseContent(content))
        }

        /// Several profiles in one body. Apple's builder accepts this and traps at run time; here
        /// it is a compile-time error instead, so the overload set is the same while the mistake
        /// surfaces earlier.
        @available(*, unavailable, message: "a profile's body holds exactly one profile")
        public static func buildBlock<each Content: LanguageModelSession.DynamicProfile>(_ contents: repeat each Content) -> Never {
            fatalError("unreachable: unavailable")
        }

        /// A profile guarded by `if #available`.
        public static func buildLimitedAvailability(_ component: some LanguageModelSession.DynamicProfile) -> LanguageModelSession.AnyDynamicProfile {
            LanguageModelSession.AnyDynamicProfile(component)
        }
    }
}
