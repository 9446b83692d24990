import Foundation
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

@Suite struct SchemaErrorTests {
    private struct Dummy: Generable {
        init(_ content: GeneratedContent) throws {}
        var generatedContent: GeneratedContent { GeneratedContent(kind: .null) }
        static var generationSchema: GenerationSchema {
            GenerationSchema(type: Dummy.self, properties: [.init(name: "a", type: Int.self), .init(name: "a", type: String.self)])
        }
    }

    private struct EmptyChoice: Generable {
        init(_ content: GeneratedContent) throws {}
        var generatedContent: GeneratedContent { GeneratedContent(kind: .null) }
        static var generationSchema: GenerationSchema { GenerationSchema(type: EmptyChoice.self, anyOf: [String]()) }
    }

    // Two distinct types that are both called `Item` in schemas.
    private enum First { struct Item: Generable {
        init(_ content: GeneratedContent) throws {}
        var generatedContent: GeneratedContent { GeneratedContent(kind: .null) }
        static var generationSchema: GenerationSchema { GenerationSchema(type: Item.self, properties: []) }
    } }
    private enum Second { struct Item: Generable {
        init(_ content: GeneratedContent) throws {}
        var generatedContent: GeneratedContent { GeneratedContent(kind: .null) }
        static var generationSchema: GenerationSchema { GenerationSchema(type: Item.self, properties: [.init(name: "x", type: Int.self)]) }
    } }
    private struct Both: Generable {
        init(_ content: GeneratedContent) throws {}
        var generatedContent: GeneratedContent { GeneratedContent(kind: .null) }
        static var generationSchema: GenerationSchema {
            GenerationSchema(type: Both.self, properties: [.init(name: "a", type: First.Item.self), .init(name: "b", type: Second.Item.self)])
        }
    }

    private func schemaError(_ body: () throws -> Void) -> GenerationSchema.SchemaError? {
        do {
            try body()
            return nil
        } catch {
            return error as? GenerationSchema.SchemaError
        }
    }

    @Test func duplicateProperty() {
        let dynamic = DynamicGenerationSchema(name: "Twice", properties: [
            .init(name: "x", schema: .init(type: Int.self)), .init(name: "x", schema: .init(type: Bool.self)),
        ])
        guard case .duplicateProperty(let schema, let property, _)? = schemaError({ _ = try GenerationSchema(root: dynamic, dependencies: []) })
        else { Issue.record("expected duplicateProperty"); return }
        #expect(schema == "Twice" && property == "x")

        guard case .duplicateProperty("Dummy", "a", _)? = schemaError({ _ = try Dummy.generationSchema.jsonGrammar() }) else {
            Issue.record("expected duplicateProperty from lowering"); return
        }
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(Dummy.generationSchema) }
    }

    @Test func undefinedReferences() {
        let root = DynamicGenerationSchema(name: "Root", properties: [
            .init(name: "a", schema: .init(referenceTo: "Missing")),
            .init(name: "b", schema: .init(arrayOf: .init(referenceTo: "AlsoMissing"))),
            .init(name: "c", schema: .init(referenceTo: "Known")),
        ])
        let known = DynamicGenerationSchema(name: "Known", anyOf: ["k"])
        guard case .undefinedReferences(let schema, let references, _)? = schemaError({
            _ = try GenerationSchema(root: root, dependencies: [known])
        }) else { Issue.record("expected undefinedReferences"); return }
        #expect(schema == "Root")
        #expect(references == ["AlsoMissing", "Missing"])
    }

    @Test func emptyChoices() {
        let strings = DynamicGenerationSchema(name: "NoStrings", anyOf: [String]())
        guard case .emptyTypeChoices("NoStrings", _)? = schemaError({ _ = try GenerationSchema(root: strings, dependencies: []) }) else {
            Issue.record("expected emptyTypeChoices for strings"); return
        }
        let schemas = DynamicGenerationSchema(name: "Holder", properties: [
            .init(name: "v", schema: DynamicGenerationSchema(name: "NoSchemas", anyOf: [DynamicGenerationSchema]())),
        ])
        guard case .emptyTypeChoices("NoSchemas", _)? = schemaError({ _ = try GenerationSchema(root: schemas, dependencies: []) }) else {
            Issue.record("expected emptyTypeChoices for schemas"); return
        }
        guard case .emptyTypeChoices("EmptyChoice", _)? = schemaError({ _ = try EmptyChoice.generationSchema.jsonGrammar() }) else {
            Issue.record("expected emptyTypeChoices from lowering"); return
        }
    }

    @Test func duplicateTypes() {
        let a = DynamicGenerationSchema(name: "Dup", anyOf: ["a"])
        let b = DynamicGenerationSchema(name: "Dup", anyOf: ["b"])
        let root = DynamicGenerationSchema(name: "Root", properties: [.init(name: "d", schema: .init(referenceTo: "Dup"))])
        guard case .duplicateType("Root", "Dup", _)? = schemaError({ _ = try GenerationSchema(root: root, dependencies: [a, b]) }) else {
            Issue.record("expected duplicateType for dependencies"); return
        }
        guard case .duplicateType(_, "Item", _)? = schemaError({ _ = try Both.generationSchema.jsonGrammar() }) else {
            Issue.record("expected duplicateType for two types named Item"); return
        }
    }

    @Test func messages() {
        let context = GenerationSchema.SchemaError.Context(debugDescription: "details")
        let errors: [GenerationSchema.SchemaError] = [
            .duplicateType(schema: nil, type: "T", context: context),
            .duplicateProperty(schema: "S", property: "p", context: context),
            .emptyTypeChoices(schema: "S", context: context),
            .undefinedReferences(schema: "S", references: ["R"], context: context),
        ]
        for error in errors {
            #expect(error.errorDescription?.isEmpty == false)
            #expect(error.recoverySuggestion?.isEmpty == false)
        }
        #expect(errors[3].errorDescription?.contains("R") == true)
    }

    private func unsupported(_ schema: GenerationSchema) -> UnsupportedGuideError? {
        do {
            _ = try schema.jsonGrammar()
            return nil
        } catch {
            return error as? UnsupportedGuideError
        }
    }

    private func wrap(_ schema: DynamicGenerationSchema) throws -> GenerationSchema {
        try GenerationSchema(root: DynamicGenerationSchema(name: "Form", properties: [.init(name: "field", schema: schema)]), dependencies: [])
    }

    @Test func guidesTheGrammarCannotExpress() throws {
        let opaque = GenerationGuide<String>(.pattern(nil))
        #expect(unsupported(try wrap(.init(type: String.self, guides: [opaque])))?.schemaName == "Form")
        #expect(unsupported(try wrap(.init(type: String.self, guides: [.pattern(/a/), .anyOf(["a"])]))) != nil)
        #expect(unsupported(try wrap(.init(type: String.self, guides: [.pattern(/a/), .pattern(/b/)]))) != nil)
        #expect(unsupported(try wrap(.init(type: String.self, guides: [.anyOf(["a"]), .anyOf(["b"])]))) != nil)
        #expect(unsupported(try wrap(.init(type: Int.self, guides: [.minimum(5), .maximum(3)]))) != nil)
        #expect(unsupported(try wrap(.init(type: Double.self, guides: [.minimum(5), .maximum(3)]))) != nil)
        #expect(unsupported(try wrap(.init(type: [Int].self, guides: [.minimumCount(3), .maximumCount(2)]))) != nil)
        #expect(unsupported(try wrap(.init(type: [Int].self, guides: [.minimumCount(-1)]))) != nil)
        #expect(unsupported(GeneratedContent.generationSchema)?.schemaName == "GeneratedContent")
        #expect(unsupported(try wrap(.init(type: [GeneratedContent].self))) != nil)
        #expect(schemaError({ _ = try Never.generationSchema.jsonGrammar() }) != nil)
    }
}
