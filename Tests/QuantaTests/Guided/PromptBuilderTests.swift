import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

@Suite struct PromptBuilderTests {
    /// A small Generable value: prompts show it as its JSON.
    @Generable fileprivate struct Point {
        var x: Int
        var y: Int
    }

    @Test func stringAndInitializers() {
        #expect(Prompt("hello").text == "hello")
        #expect(Prompt(["a", "b"]).text == "a\nb")
        #expect(Prompt(Prompt("x")).text == "x")
        #expect(Instructions("be brief").text == "be brief")
        #expect(Instructions(Instructions(["one", "two"])).text == "one\ntwo")
    }

    @Test func promptBuilderControlFlow() {
        func build(_ flag: Bool, _ items: [String]) -> Prompt {
            Prompt {
                "first"
                if flag { "only when true" }
                for item in items { "item \(item)" }
                if flag { "yes" } else { "no" }
                if #available(macOS 10.15, *) { "available" }
                42
                ["c", "d"]
                Point(x: 1, y: 2)
            }
        }
        #expect(build(true, ["1", "2"]).text == "first\nonly when true\nitem 1\nitem 2\nyes\navailable\n42\nc\nd\n{\"x\":1,\"y\":2}")
        #expect(build(false, []).text == "first\nno\navailable\n42\nc\nd\n{\"x\":1,\"y\":2}")
    }

    @Test func instructionsBuilderControlFlow() {
        func build(_ flag: Bool) -> Instructions {
            Instructions {
                "You are a helpful assistant."
                if flag { "Answer in French." }
                for rule in ["Be brief.", "Cite sources."] { rule }
                if flag { true } else { 3.5 }
                Instructions("Last line.")
            }
        }
        #expect(build(true).text == "You are a helpful assistant.\nAnswer in French.\nBe brief.\nCite sources.\ntrue\nLast line.")
        #expect(build(false).text == "You are a helpful assistant.\nBe brief.\nCite sources.\n3.5\nLast line.")
    }

    @Test func emptyBlocks() {
        #expect(Prompt {}.text == "")
        #expect(Instructions {}.components.isEmpty)
    }

    @Test func throwingBuilderRethrows() {
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            _ = try Prompt { () throws -> Prompt in throw Failure() }
        }
    }
}
