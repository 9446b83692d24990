/// A value that can be written into instructions (the system message).
public protocol InstructionsRepresentable {
    /// The instructions this value reads as.
    @InstructionsBuilder var instructionsRepresentation: Instructions { get }
}

extension String: InstructionsRepresentable {
    /// The string itself, as one line of instructions.
    public var instructionsRepresentation: Instructions {
        var instructions = Instructions()
        instructions.components = [self]
        return instructions
    }
}

extension Array: InstructionsRepresentable where Element: InstructionsRepresentable {
    /// The elements' instructions, one after another.
    public var instructionsRepresentation: Instructions {
        var instructions = Instructions()
        instructions.components = flatMap { $0.instructionsRepresentation.components }
        return instructions
    }
}
