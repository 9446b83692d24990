// The compiler-plugin protocol, as much of it as these macros use.
//
// The compiler starts the plugin as a process and talks to it over stdin/stdout: every message
// is an 8-byte little-endian length, then that many bytes of JSON. Each message is an object
// with one key naming its kind (`getCapability`, `expandAttachedMacro`, ...) whose value holds
// the arguments. The shapes follow swift-syntax's description of the protocol
// (SwiftCompilerPluginMessageHandling/PluginMessages.swift); only the fields read here are
// declared, so unknown fields are ignored.

/// A message from the compiler; exactly one field is set.
struct HostMessage: Decodable {
    struct GetCapability: Decodable {}

    struct ExpandAttachedMacro: Decodable {
        var macro: MacroReference
        var macroRole: String
        var attributeSyntax: Syntax
        var declSyntax: Syntax
        var extendedTypeSyntax: Syntax?
        var conformanceListSyntax: Syntax?
    }

    struct ExpandFreestandingMacro: Decodable {
        var syntax: Syntax
    }

    struct LoadPluginLibrary: Decodable {}

    var getCapability: GetCapability?
    var expandAttachedMacro: ExpandAttachedMacro?
    var expandFreestandingMacro: ExpandFreestandingMacro?
    var loadPluginLibrary: LoadPluginLibrary?
}

/// Which macro a request expands (`typeName` is the `#externalMacro` type).
struct MacroReference: Decodable {
    var moduleName: String
    var typeName: String
    var name: String
}

/// A piece of the user's source: its text and where it starts.
struct Syntax: Decodable {
    struct Location: Decodable {
        var fileName: String
        /// UTF-8 offset of the text's first byte in the file.
        var offset: Int
        var line: Int
        var column: Int
    }

    var source: String
    var location: Location
}

/// A message to the compiler.
enum PluginReply: Encodable {
    case capability(protocolVersion: Int)
    case expansion(source: String?, diagnostics: [PluginDiagnostic])
    case libraryNotLoaded

    private struct Capability: Encodable { var protocolVersion: Int }
    private struct CapabilityResult: Encodable { var capability: Capability }
    private struct ExpansionResult: Encodable {
        var expandedSource: String?
        var diagnostics: [PluginDiagnostic]
    }
    private struct LibraryResult: Encodable {
        var loaded: Bool
        var diagnostics: [PluginDiagnostic]
    }
    private enum Key: String, CodingKey { case getCapabilityResult, expandMacroResult, loadPluginLibraryResult }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .capability(let version):
            try container.encode(CapabilityResult(capability: Capability(protocolVersion: version)), forKey: .getCapabilityResult)
        case .expansion(let source, let diagnostics):
            try container.encode(ExpansionResult(expandedSource: source, diagnostics: diagnostics), forKey: .expandMacroResult)
        case .libraryNotLoaded:
            try container.encode(LibraryResult(loaded: false, diagnostics: []), forKey: .loadPluginLibraryResult)
        }
    }
}

/// A diagnostic at a UTF-8 offset of a file, as the protocol carries it.
struct PluginDiagnostic: Encodable {
    struct Position: Encodable {
        var fileName: String
        var offset: Int
    }
    struct Range: Encodable {
        var fileName: String
        var startOffset: Int
        var endOffset: Int
    }

    var message: String
    var severity: String
    var position: Position
    var highlights: [Range]
    var notes: [String] = []
    var fixIts: [String] = []

    /// An error spanning `start..<end` of `file`.
    init(error message: String, file: String, start: Int, end: Int) {
        self.message = message
        severity = "error"
        position = Position(fileName: file, offset: start)
        highlights = [Range(fileName: file, startOffset: start, endOffset: max(start, end))]
    }
}
