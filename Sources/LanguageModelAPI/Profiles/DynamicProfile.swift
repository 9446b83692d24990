// A session's configuration as a value evaluated at every request: instructions and tools, the
// model, option overrides, a history transform and callbacks, possibly depending on
// `@SessionProperty` values.

extension LanguageModelSession {
    /// A session configuration composed from other profiles, evaluated at the start of every
    /// request, like a SwiftUI view's body.
    ///
    /// ```swift
    /// struct Concierge: DynamicProfile {
    ///     @SessionProperty(\.isExpertMode) var isExpertMode
    ///     var body: some DynamicProfile {
    ///         if isExpertMode {
    ///             Profile { Instructions("Answer in depth."); FindMuseums() }.temperature(0.2)
    ///         } else {
    ///             Profile { Instructions("Answer briefly.") }
    ///         }
    ///     }
    /// }
    /// let session = LanguageModelSession(profile: Concierge().model(model))
    /// ```
    @_typeEraser(AnyDynamicProfile)
    public protocol DynamicProfile {
        /// The profile this one is made of.
        associatedtype Body: LanguageModelSession.DynamicProfile
        /// Evaluated at the start of every request.
        @LanguageModelSession.DynamicProfileBuilder var body: Body { get }
    }

    /// A profile made of dynamic instructions: their text becomes the instructions and their
    /// tools the session's tools.
    public struct Profile: LanguageModelSession.DynamicProfile {
        private let instructions: any DynamicInstructions

        /// A profile with these instructions and tools.
        public init(@DynamicInstructionsBuilder _ dynamicInstructions: () -> some DynamicInstructions) {
            instructions = dynamicInstructions()
        }

        /// Never evaluated: the session resolves the instructions.
        public var body: Never { fatalError("Profile has no body") }
    }

    /// Any profile, with its type erased.
    public struct AnyDynamicProfile: LanguageModelSession.DynamicProfile {
        private let wrapped: any LanguageModelSession.DynamicProfile

        /// Erases the type of `dynamicProfile`.
        public init(_ dynamicProfile: any LanguageModelSession.DynamicProfile) {
            wrapped = dynamicProfile
        }

        /// Erases the type of `dynamicProfile`.
        public init(erasing dynamicProfile: some DynamicProfile) {
            self.init(dynamicProfile)
        }

        /// Never evaluated: the session resolves the wrapped profile.
        public var body: Never { fatalError("AnyDynamicProfile has no body") }
    }

    /// One of two profiles, chosen by an `if`/`else`. Switching branches deactivates the old
    /// branch's profile and activates the new one's.
    public struct ConditionalDynamicProfile<TrueContent: LanguageModelSession.DynamicProfile,
                                            FalseContent: LanguageModelSession.DynamicProfile>: LanguageModelSession.DynamicProfile {
        @usableFromInline
        internal enum Branch {
            case trueContent(TrueContent)
            case falseContent(FalseContent)
        }

        @usableFromInline
        internal var branch: Branch

        @usableFromInline
        internal init(_ branch: Branch) {
            self.branch = branch
        }

        /// Never evaluated: the session resolves the branch taken.
        public var body: Never { fatalError("ConditionalDynamicProfile has no body") }
    }
}

extension LanguageModelSession.DynamicProfile {
    /// `Profile` inside a profile's body.
    public typealias Profile = LanguageModelSession.Profile
    /// `DynamicProfile` inside a profile's body.
    public typealias DynamicProfile = LanguageModelSession.DynamicProfile
}

extension Never: LanguageModelSession.DynamicProfile {}

extension LanguageModelSession.Profile: PrimitiveProfile {
    package func resolve(into resolution: inout ProfileResolution, path: String) {
        var instructions = InstructionsResolution(values: resolution.values)
        instructions.add(self.instructions)
        resolution.profile.instructionPieces?.append(contentsOf: instructions.pieces)
        resolution.profile.tools += instructions.tools
    }
}

extension LanguageModelSession.AnyDynamicProfile: PrimitiveProfile {
    package func resolve(into resolution: inout ProfileResolution, path: String) {
        resolution.add(wrapped, path: path)
    }
}

extension LanguageModelSession.ConditionalDynamicProfile: PrimitiveProfile {
    package func resolve(into resolution: inout ProfileResolution, path: String) {
        // The branch is part of the path, so switching branches changes which handlers are active.
        switch branch {
        case let .trueContent(content): resolution.add(content, path: path + "/true")
        case let .falseContent(content): resolution.add(content, path: path + "/false")
        }
    }
}
