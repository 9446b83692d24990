// One way the bytes so far can be read: a stack of open JSON constructs. The matcher keeps a set of
// these because alternatives (`anyOf`, optional keys) may share a prefix.

/// One open construct. A parent's stage is already advanced past a child when the child is pushed,
/// so popping a finished child needs no further bookkeeping.
enum ParseFrame: Sendable, Hashable {
    case document(DocumentStage)
    case object(node: Int32, stage: ObjectStage)
    /// A free-key object; a key being written is an `anyString` frame above it.
    case dictionary(node: Int32, stage: DictionaryStage)
    case array(node: Int32, count: Int32, stage: ArrayStage)
    /// `true`, `false` or `null` (index into `CompiledGrammar.literals`), with bytes written so far.
    case literal(index: Int32, written: Int32)
    case anyString(StringScanPhase)
    case pattern(node: Int32, phase: StringScanPhase, states: RegexStateSet)
    /// Inside one of the sorted spellings: candidates `first...last` share the `written` bytes so far.
    case choice(node: Int32, first: Int32, last: Int32, written: Int32)
    case number(node: Int32, NumberPrefix)
}

enum DocumentStage: Sendable, Hashable {
    /// Writing the prefix; at its end the value starts.
    case prefix(written: Int32)
    /// The value is done; writing the suffix.
    case suffix(written: Int32)
}

enum ObjectStage: Sendable, Hashable {
    /// After `{` (and maybe its one space).
    case opened(spaced: Bool)
    /// After `,`: a key from `nextProperty` on must follow.
    case comma(nextProperty: Int32, spaced: Bool)
    /// Inside the key of `property`.
    case key(property: Int32, written: Int32)
    /// After the key: `:` follows.
    case colon(property: Int32)
    /// After `:`: the value follows.
    case value(property: Int32, spaced: Bool)
    /// After the value of `property`: `,` or `}`.
    case after(property: Int32)
}

enum DictionaryStage: Sendable, Hashable {
    /// After `{` (and maybe its one space).
    case opened(spaced: Bool)
    /// After `,`: a key must follow.
    case comma(spaced: Bool)
    /// After the key: `:` follows.
    case colon
    /// After `:`: the value follows.
    case value(spaced: Bool)
    /// After a value: `,` or `}`.
    case after
}

enum ArrayStage: Sendable, Hashable {
    case opened(spaced: Bool)
    case comma(spaced: Bool)
    /// After an element: `,` or `]`.
    case after
}

/// A stack of open constructs, outermost first.
struct ParseStack: Sendable, Hashable {
    var frames: [ParseFrame]
}
