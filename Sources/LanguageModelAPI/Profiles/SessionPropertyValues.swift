// The per-session store behind `@SessionProperty`: values keyed by their `SessionPropertyKey`
// type, plus the session's history. Profiles read it while their body is evaluated, so a change
// here changes what the next request is resolved to.
import Observation
import Synchronization

/// A key for a value stored in `SessionPropertyValues`, with the value a session starts with.
///
/// The `@SessionPropertyEntry` macro declares the key and the property together:
///
/// ```swift
/// extension SessionPropertyValues {
///     @SessionPropertyEntry var isExpertMode: Bool = false
/// }
/// ```
public protocol SessionPropertyKey: SendableMetatype {
    /// The type of the stored value.
    associatedtype Value
    /// The value before anything is stored under the key.
    static var defaultValue: Value { get }
}

/// Values attached to one session (its `properties`), observable, so views and profiles that
/// read them see changes.
public final class SessionPropertyValues: Sendable {
    /// Values set so far, by key type. Values of any type are stored; a value written from one
    /// isolation domain and read from another is the caller's contract, as in FM27.
    private let storage = Mutex<[ObjectIdentifier: Transfer<Any>]>([:])
    private let registrar = ObservationRegistrar()
    /// The session whose history `history` shows; weak, because the session owns this object.
    private let session = Mutex<WeakSession>(WeakSession())

    /// Values not attached to a session (an unbound `@SessionProperty` reads from one of these).
    init() {}

    /// Attaches the values to the session that owns them.
    func attach(to owner: LanguageModelSession) {
        session.withLock { $0.session = owner }
    }

    /// The value stored under `key`, or its default.
    public subscript<K: SessionPropertyKey>(key: K.Type) -> K.Value {
        get {
            registrar.access(self, keyPath: \.[slot: ObjectIdentifier(key)])
            return self[slot: ObjectIdentifier(key)] as? K.Value ?? K.defaultValue
        }
        set {
            registrar.withMutation(of: self, keyPath: \.[slot: ObjectIdentifier(key)]) {
                self[slot: ObjectIdentifier(key)] = newValue
            }
        }
    }

    /// The raw storage of one key; a key path target so each key is observed on its own.
    private subscript(slot slot: ObjectIdentifier) -> Any? {
        get { storage.withLock { $0[slot]?.value } }
        set { storage.withLock { $0[slot] = newValue.map(Transfer.init) } }
    }

    /// The session's history: its transcript without the leading instructions. Setting it edits
    /// the session's transcript (which throws off a running request, as any transcript edit
    /// does). Empty for values not attached to a session.
    public var history: ArraySlice<Transcript.Entry> {
        get { session.withLock { $0.session }?.transcript.history ?? [] }
        set { session.withLock { $0.session }?.transcript.history = newValue }
    }
}

extension SessionPropertyValues: Observable {}

/// A weak reference that can live in a `Mutex`.
struct WeakSession {
    weak var session: LanguageModelSession?
}
