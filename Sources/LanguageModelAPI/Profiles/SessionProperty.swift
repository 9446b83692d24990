// `@SessionProperty`: a profile, dynamic instructions or tool reads and writes a value of the
// session it is part of. The session binds each wrapper it finds when it resolves the profile
// (the wrapper's storage is a shared reference, so every copy of the value sees the binding).
import Synchronization

extension LanguageModelSession {
    /// A value of the session's `properties`, read and written through `keyPath`.
    ///
    /// ```swift
    /// struct Concierge: DynamicProfile {
    ///     @SessionProperty(\.isExpertMode) var isExpertMode
    ///     var body: some DynamicProfile {
    ///         if isExpertMode { Profile { Instructions("Answer in depth.") } }
    ///         else { Profile { Instructions("Answer briefly.") } }
    ///     }
    /// }
    /// ```
    ///
    /// The session binds the wrapper when it resolves the profile, its instructions and its
    /// tools; until then it reads and writes values of its own, not of any session.
    @propertyWrapper
    public struct SessionProperty<Value> {
        /// Unchecked: key paths to a property (`\.isExpertMode`, the only form the init is meant
        /// for) capture no state.
        nonisolated(unsafe) private let keyPath: ReferenceWritableKeyPath<SessionPropertyValues, Value>
        private let link = SessionPropertyLink()

        /// The property at `keyPath` of the session's values.
        public init(_ keyPath: ReferenceWritableKeyPath<SessionPropertyValues, Value>) {
            self.keyPath = keyPath
        }

        /// The current value; setting it changes it for the whole session.
        public var wrappedValue: Value {
            get { link.values[keyPath: keyPath] }
            nonmutating set { link.values[keyPath: keyPath] = newValue }
        }
    }
}

extension LanguageModelSession.SessionProperty: Sendable where Value: Sendable {}

/// Something holding session state that the session binds before use.
protocol SessionPropertyBinding {
    func bind(to values: SessionPropertyValues)
}

extension LanguageModelSession.SessionProperty: SessionPropertyBinding {
    func bind(to values: SessionPropertyValues) {
        link.values = values
    }
}

/// The values a `SessionProperty` reads: shared by every copy of the wrapper.
final class SessionPropertyLink: Sendable {
    private let current = Mutex(SessionPropertyValues())
    var values: SessionPropertyValues {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}

/// Binds every `@SessionProperty` stored directly in `value` to `values`.
func bindSessionProperties(of value: Any, to values: SessionPropertyValues) {
    for child in Mirror(reflecting: value).children {
        (child.value as? any SessionPropertyBinding)?.bind(to: values)
    }
}

extension DynamicInstructions {
    /// `@SessionProperty` inside dynamic instructions.
    public typealias SessionProperty = LanguageModelSession.SessionProperty
}

extension Tool {
    /// `@SessionProperty` inside a tool.
    public typealias SessionProperty = LanguageModelSession.SessionProperty
}

extension LanguageModelSession.DynamicProfile {
    /// `@SessionProperty` inside a profile.
    public typealias SessionProperty = LanguageModelSession.SessionProperty
}

extension LanguageModelSession.DynamicProfileModifier {
    /// `@SessionProperty` inside a profile modifier.
    public typealias SessionProperty = LanguageModelSession.SessionProperty
}
