// The plugin's expansions of the declarations in Golden/*.swift, against Golden/*.expansion.
// Each input starts with the macro's attribute on a line of its own; the expansion file holds
// each role's output under a `// <role>` line, or `// error <line>:<column>: <message>` lines.
// That the expansions compile and behave is tested where they are used (QuantaTests'
// MacroSchemaTests, FM27CompatTests); this pins their text. Time cap: 2 s.
import Foundation
import Testing

@Suite struct GoldenExpansionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static var inputs: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .filter { $0.hasSuffix(".swift") }.map { String($0.dropLast(6)) }.sorted()
    }

    /// What the plugin answers for `input`, in the expansion file's format.
    static func expansion(of input: String, plugin: PluginProcess) throws -> String {
        let attribute = String(input.prefix { $0 != "\n" })
        let (typeName, roles) = attribute.hasPrefix("@SessionPropertyEntry") ? ("SessionPropertyEntryMacro", ["accessor", "peer"])
            : attribute.hasPrefix("@Guide") ? ("GuideMacro", ["peer"]) : ("GenerableMacro", ["member", "extension"])
        let typeName_ = input.firstMatch(of: /(?:struct|enum|class|actor)\s+(\w+)/).map { String($0.1) } ?? "T"
        var text = ""
        for role in roles {
            let (source, diagnostics) = try plugin.expand(typeName: typeName, role: role, attribute: attribute, declaration: input,
                                                         extendedType: typeName_)
            if diagnostics.isEmpty {
                text += "// \(role)\n\(source ?? "<nil>")\n"
            } else {
                for diagnostic in diagnostics {
                    let offset = (diagnostic["position"] as? [String: Any])?["offset"] as? Int ?? -1
                    let before = input.utf8.prefix(max(0, offset))
                    let line = before.count(where: { $0 == 0x0A }) + 1
                    let column = before.count - (before.lastIndex(of: 0x0A).map { before.distance(from: before.startIndex, to: $0) + 1 } ?? 0) + 1
                    text += "// error \(line):\(column): \(diagnostic["message"] as? String ?? "")\n"
                }
            }
        }
        return text
    }

    @Test(arguments: inputs) func expansionMatchesGolden(name: String) throws {
        let plugin = try PluginProcess()
        let input = try String(contentsOf: Self.directory.appendingPathComponent("\(name).swift"), encoding: .utf8)
        let actual = try Self.expansion(of: input, plugin: plugin)
        let goldenURL = Self.directory.appendingPathComponent("\(name).expansion")
        if ProcessInfo.processInfo.environment["QUANTA_WRITE_GOLDEN"] == "1" {
            try actual.write(to: goldenURL, atomically: true, encoding: .utf8)
        }
        let golden = try String(contentsOf: goldenURL, encoding: .utf8)
        #expect(actual == golden)
    }

    @Test func everyGoldenCaseIsPresent() {
        #expect(Self.inputs.count >= 8)
    }
}
