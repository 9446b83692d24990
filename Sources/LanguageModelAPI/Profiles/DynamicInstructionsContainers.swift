// The building blocks `DynamicInstructionsBuilder` produces. Each is resolved by the session
// directly (its `body` is never evaluated).

/// Any dynamic instructions, with their type erased.
public struct AnyDynamicInstructions: DynamicInstructions {
    private let wrapped: any DynamicInstructions

    /// Erases the type of `dynamicInstructions`.
    public init(_ dynamicInstructions: any DynamicInstructions) {
        wrapped = dynamicInstructions
    }

    /// Erases the type of `dynamicInstructions`.
    public init(erasing dynamicInstructions: some DynamicInstructions) {
        self.init(dynamicInstructions)
    }

    /// Never evaluated: the session resolves the wrapped instructions.
    public var body: Never { fatalError("AnyDynamicInstructions has no body") }
}

extension AnyDynamicInstructions: PrimitiveDynamicInstructions {
    package func resolve(into resolution: inout InstructionsResolution) {
        resolution.add(wrapped)
    }
}

/// Several dynamic instructions, in order.
public struct TupleDynamicInstructions<each Content: DynamicInstructions>: DynamicInstructions {
    private let contents: (repeat each Content)

    /// The instructions, in order.
    public init(_ contents: repeat each Content) {
        self.contents = (repeat each contents)
    }

    /// Never evaluated: the session resolves each element.
    public var body: Never { fatalError("TupleDynamicInstructions has no body") }
}

extension TupleDynamicInstructions: PrimitiveDynamicInstructions {
    package func resolve(into resolution: inout InstructionsResolution) {
        for content in repeat each contents {
            resolution.add(content)
        }
    }
}

/// One of two dynamic instructions, chosen by an `if`/`else`.
public struct ConditionalDynamicInstructions<TrueContent: DynamicInstructions, FalseContent: DynamicInstructions>: DynamicInstructions {
    /// Which branch was taken.
    public enum Branch {
        /// The `if` branch.
        case trueContent(TrueContent)
        /// The `else` branch.
        case falseContent(FalseContent)
    }

    private let branch: Branch

    /// The instructions of the branch taken.
    public init(_ branch: Branch) {
        self.branch = branch
    }

    /// Never evaluated: the session resolves the branch taken.
    public var body: Never { fatalError("ConditionalDynamicInstructions has no body") }
}

extension ConditionalDynamicInstructions: PrimitiveDynamicInstructions {
    package func resolve(into resolution: inout InstructionsResolution) {
        switch branch {
        case let .trueContent(content): resolution.add(content)
        case let .falseContent(content): resolution.add(content)
        }
    }
}

extension Optional: DynamicInstructions where Wrapped: DynamicInstructions {
    /// Never evaluated: the session resolves the wrapped instructions, if any.
    public var body: Never { fatalError("Optional has no body") }
}

extension Optional: PrimitiveDynamicInstructions where Wrapped: DynamicInstructions {
    package func resolve(into resolution: inout InstructionsResolution) {
        if let self { resolution.add(self) }
    }
}

extension Never: DynamicInstructions {
    /// Unreachable: there is no value of `Never`.
    public var body: Never { fatalError("Never has no body") }
}

/// No instructions.
public struct EmptyDynamicInstructions: DynamicInstructions, Sendable {
    /// No instructions.
    public init() {}
    /// Never evaluated: there is nothing to resolve.
    public var body: Never { fatalError("EmptyDynamicInstructions has no body") }
}

extension EmptyDynamicInstructions: PrimitiveDynamicInstructions {
    package func resolve(into resolution: inout InstructionsResolution) {}
}

/// Dynamic instructions for each element of a collection, in order.
public struct DynamicInstructionsForEach<Data: RandomAccessCollection, ID: Hashable, Content: DynamicInstructions>: DynamicInstructions {
    private let data: Data
    private let content: (Data.Element) -> Content

    /// Instructions for each element of `data`, identified by `id`.
    public init(_ data: Data, id: KeyPath<Data.Element, ID>, @DynamicInstructionsBuilder content: @escaping (Data.Element) -> Content) {
        self.data = data
        self.content = content
    }

    /// Never evaluated: the session resolves each element's instructions.
    public var body: Never { fatalError("DynamicInstructionsForEach has no body") }
}

extension DynamicInstructionsForEach where ID == Data.Element.ID, Data.Element: Identifiable {
    /// Instructions for each element of `data`.
    public init(_ data: Data, @DynamicInstructionsBuilder content: @escaping (Data.Element) -> Content) {
        self.init(data, id: \.id, content: content)
    }
}

extension DynamicInstructionsForEach: PrimitiveDynamicInstructions {
    package func resolve(into resolution: inout InstructionsResolution) {
        for element in data { resolution.add(content(element)) }
    }
}

extension DynamicInstructions {
    /// `ForEach` inside a dynamic instructions body.
    public typealias ForEach = DynamicInstructionsForEach
}
