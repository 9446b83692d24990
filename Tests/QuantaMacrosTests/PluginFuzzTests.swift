// The plugin never crashes or hangs: random, truncated and hostile declarations, each answered
// within a second by one long-lived plugin process (as the compiler keeps one). Any answer is
// fine, an expansion or an error diagnostic; what fails is no answer, a malformed one, or a
// dead process. `make fuzz` runs the same with more cases (QUANTA_MACRO_FUZZ_CASES).
// Time cap: 60 s for the default 10,000 cases (about 5 s here).
import TestSupport
import Foundation
import Testing

@Suite struct PluginFuzzTests {
    /// Valid declarations the mutations start from: every shape the scanner reads.
    static let seeds: [String] = {
        let golden = GoldenExpansionTests.inputs.compactMap {
            try? String(contentsOf: GoldenExpansionTests.directory.appendingPathComponent("\($0).swift"), encoding: .utf8)
        }
        return golden + [
            "@Generable struct S { var a: [String: [Int]]; var b: (Int, Int)? ; var c: Array<Dictionary<String, Int>> }",
            "@Generable enum E { case a(x: Int = 3, _ y: String), b; case `c` }",
            "@Generable struct S { @Guide(description: \"\"\"\n multi \\(x) \"line\" \n\"\"\") var a: String }",
            "@Generable struct S { @Guide(#/a\\/b/#) var a: String; @Guide(description: #\"raw \"quoted\" \\#(x)\"#) var b: Int }",
            "@Generable struct S { var a: Int { didSet { print(a) } }; lazy var b: Int = 3; var c: Int { get { 1 } set {} } }",
            "@Generable struct S { /* a /* nested */ comment */ var a: Int // trailing\n var b = \"s\\(\"inner\\(1)\")\" }",
        ]
    }()

    /// Adversarial declarations that are not mutations of seeds.
    static func hostile() -> [String] {
        let deepGeneric = String(repeating: "Array<", count: 10_000) + "Int" + String(repeating: ">", count: 10_000)
        let deepParens = String(repeating: "(", count: 10_000) + String(repeating: ")", count: 10_000)
        let megabyte = String(repeating: "a", count: 1 << 20)
        let manyProperties = (0..<5_000).map { "var p\($0): Int" }.joined(separator: "\n")
        return [
            "", "@", "@Generable", "struct", "struct S", "struct S {", "}", "{{{{", "\"", "\"\"\"", "#\"", "/*", "`", "#/",
            "@Generable struct S { var a: \(deepGeneric) }",
            "@Generable struct S { var a: Int = \(deepParens) }",
            "@Generable struct S { @Guide(\(deepParens)) var a: Int }",
            "@Generable(description: \"\(megabyte)\") struct S { var a: Int }",
            "@Generable struct S { @Guide(description: \"\(megabyte)) var a: Int }",
            "@Guide(\(String(repeating: "@Guide(", count: 5_000))) struct S {}",
            "@Generable struct S {\n\(manyProperties)\n}",
            "@Generable enum E { \((0..<5_000).map { "case c\($0)(Int)" }.joined(separator: "\n")) }",
            "@Generable struct S { var \u{0}a: Int; var b\u{FFFD}: String }",
            #"@Generable struct S { var a: Int = "\("\("\("\(" }"#,
            "@Generable struct S { var a: Int = [ ( { ] ) } }",
            String(repeating: #""\("#, count: 20_000),
            String(repeating: "/* ", count: 20_000),
            "@Generable struct S { #if os(Linux) var a: Int #endif }",
            "@Generable struct S { var (a, b): (Int, Int) }",
            "@Generable struct S { var a: Int, b }",
        ]
    }

    /// A seed cut short, with bytes flipped, or with Swift's delimiters spliced in.
    static func mutation(_ random: inout SplitMix64) -> String {
        var bytes = Array(seeds.randomElement(using: &random)!.utf8)
        let pieces = ["\"", "\"\"\"", "#", "(", ")", "{", "}", "[", "]", "<", ">", "/", "/*", "*/", "\\(", "`", "@", ":", ",", "=", "?",
                      "\n", "@Guide(", "case ", "var ", "let ", "static ", "#/", "\u{0}", "é", "\u{1F600}"]
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random)))
            case 1 where !bytes.isEmpty: bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            case 2: bytes.insert(contentsOf: pieces.randomElement(using: &random)!.utf8, at: Int.random(in: 0...bytes.count, using: &random))
            default:
                if bytes.count > 2 {
                    let a = Int.random(in: 0..<bytes.count, using: &random), b = Int.random(in: a...bytes.count, using: &random)
                    bytes.removeSubrange(a..<b)
                }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func pluginAnswersEveryInputWithinASecond() throws {
        let count = Int(ProcessInfo.processInfo.environment["QUANTA_MACRO_FUZZ_CASES"] ?? "") ?? 10_000
        var random = SplitMix64(seed: UInt64(ProcessInfo.processInfo.environment["QUANTA_MACRO_FUZZ_SEED"] ?? "") ?? 1)
        let plugin = try PluginProcess()
        let roles = [("GenerableMacro", "member"), ("GenerableMacro", "extension"), ("GuideMacro", "peer"),
                     ("SessionPropertyEntryMacro", "accessor"), ("SessionPropertyEntryMacro", "peer"),
                     ("SessionPropertyEntryDefaultValueMacro", "accessor"), ("NoSuchMacro", "member")]
        let hostile = Self.hostile()
        var answered = 0, expanded = 0, slowest = 0.0
        for index in 0..<count {
            let declaration = index < hostile.count ? hostile[index] : Self.mutation(&random)
            let (typeName, role) = roles[index % roles.count]
            let attribute = index % 3 == 0 ? Self.mutation(&random) : "@Generable"
            let start = Date()
            let reply: (source: String?, diagnostics: [[String: Any]])
            do {
                reply = try plugin.expand(typeName: typeName, role: role, attribute: attribute, declaration: declaration)
            } catch {
                Issue.record("case \(index) (\(typeName) \(role)): \(error); declaration prefix: \(declaration.prefix(200).debugDescription)")
                return
            }
            slowest = max(slowest, Date().timeIntervalSince(start))
            answered += 1
            if reply.source != nil { expanded += 1 }
            // Every failure is explained.
            #expect(reply.source != nil || !reply.diagnostics.isEmpty, "case \(index): no expansion and no diagnostic")
        }
        #expect(answered == count)
        print("plugin fuzz: \(answered) answered, \(expanded) expanded, slowest \(Int(slowest * 1000)) ms")
    }

    /// The protocol's other messages: capability, an unknown request, a plugin library load.
    @Test func protocolMessagesAreAnswered() throws {
        let plugin = try PluginProcess()
        let capability = try plugin.exchange(["getCapability": ["capability": ["protocolVersion": 8]]])
        #expect(((capability["getCapabilityResult"] as? [String: Any])?["capability"] as? [String: Any])?["protocolVersion"] as? Int == 7)
        let unknown = try plugin.exchange(["somethingNew": [:]])
        #expect(unknown["expandMacroResult"] != nil)
        let load = try plugin.exchange(["loadPluginLibrary": ["libraryPath": "/x", "moduleName": "X"]])
        #expect((load["loadPluginLibraryResult"] as? [String: Any])?["loaded"] as? Bool == false)
    }
}
