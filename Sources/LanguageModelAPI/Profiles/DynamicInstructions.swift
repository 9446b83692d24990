// Instructions that are re-evaluated at every request: text pieces and tools, possibly depending
// on `@SessionProperty` values. The session walks them into a `InstructionsResolution`.

/// Instructions (and tools) composed from other dynamic instructions, evaluated at the start of
/// every request, like a SwiftUI view's body.
@_typeEraser(AnyDynamicInstructions)
public protocol DynamicInstructions {
    /// The instructions this one is made of.
    associatedtype Body: DynamicInstructions
    /// Evaluated at the start of every request.
    @DynamicInstructionsBuilder var body: Body { get }
}

/// Dynamic instructions the session resolves itself instead of evaluating a body.
package protocol PrimitiveDynamicInstructions {
    func resolve(into resolution: inout InstructionsResolution)
}

/// What dynamic instructions amount to for one request.
package struct InstructionsResolution {
    /// Text pieces, in order (joined as `Instructions` joins its lines).
    var pieces: [String] = []
    /// Tools, in order.
    var tools: [any Tool] = []
    /// Binds `@SessionProperty` wrappers met on the way.
    let values: SessionPropertyValues

    /// Adds `instructions`: a primitive resolves itself, anything else through its body.
    mutating func add(_ instructions: any DynamicInstructions) {
        bindSessionProperties(of: instructions, to: values)
        if let primitive = instructions as? any PrimitiveDynamicInstructions {
            primitive.resolve(into: &self)
        } else {
            add(instructions.body)
        }
    }

    /// The instructions text, or nil when there is none.
    package var text: String? {
        pieces.isEmpty ? nil : pieces.joined(separator: "\n")
    }
}

extension Instructions: DynamicInstructions {
    /// The instructions' text as a piece of dynamic instructions.
    public var body: some DynamicInstructions {
        InstructionsText(pieces: components)
    }
}

/// Text lines of `Instructions`.
struct InstructionsText: DynamicInstructions, PrimitiveDynamicInstructions {
    let pieces: [String]
    var body: Never { fatalError("primitive") }
    package func resolve(into resolution: inout InstructionsResolution) {
        resolution.pieces += pieces
    }
}

/// A tool given among dynamic instructions: it becomes one of the session's tools.
struct ToolInstructions: DynamicInstructions, PrimitiveDynamicInstructions {
    let tool: any Tool
    var body: Never { fatalError("primitive") }
    package func resolve(into resolution: inout InstructionsResolution) {
        bindSessionProperties(of: tool, to: resolution.values)
        resolution.tools.append(tool)
    }
}
