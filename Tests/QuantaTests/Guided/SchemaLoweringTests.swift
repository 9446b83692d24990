import Foundation
import Grammar
import Testing
@testable import Evaluation
@testable import LanguageModelAPI
@testable import LocalModels
import Quanta

@Suite struct SchemaLoweringTests {
    @Test func recipeLowersToShapes() throws {
        let grammar = try Recipe.generationSchema.jsonGrammar(prefix: "<json>", suffix: "</json>")
        let expected = JSONGrammar(
            prefix: "<json>",
            root: .object(properties: [
                JSONProperty(name: "title", shape: .string(.any)),
                JSONProperty(name: "cuisine", shape: .reference("Cuisine")),
                JSONProperty(name: "servings", shape: .integer(minimum: 1, maximum: 8)),
                JSONProperty(name: "ingredients", shape: .array(items: .reference("Ingredient"), minimumCount: 1, maximumCount: 10)),
                JSONProperty(name: "notes", shape: .string(.any), isOptional: true),
            ]),
            suffix: "</json>",
            definitions: [
                "Cuisine": .string(.choices(["italian", "thai", "mexican"])),
                "Ingredient": .object(properties: [
                    JSONProperty(name: "name", shape: .string(.any)),
                    JSONProperty(name: "grams", shape: .number(minimum: 0, maximum: nil)),
                ]),
            ])
        #expect(grammar == expected)
    }

    @Test func primitives() throws {
        #expect(try Bool.generationSchema.jsonGrammar().root == .boolean)
        #expect(try String.generationSchema.jsonGrammar().root == .string(.any))
        #expect(try Int.generationSchema.jsonGrammar().root == .integer(minimum: nil, maximum: nil))
        for schema in [Float.generationSchema, Double.generationSchema, Decimal.generationSchema] {
            #expect(try schema.jsonGrammar().root == .number(minimum: nil, maximum: nil))
        }
        #expect(try [[Bool]].generationSchema.jsonGrammar().root
            == .array(items: .array(items: .boolean, minimumCount: 0, maximumCount: nil), minimumCount: 0, maximumCount: nil))
    }

    @Test func recursiveType() throws {
        let node = JSONShape.object(properties: [
            JSONProperty(name: "value", shape: .integer(minimum: nil, maximum: nil)),
            JSONProperty(name: "children", shape: .array(items: .reference("TreeNode"), minimumCount: 0, maximumCount: nil)),
        ])
        #expect(try TreeNode.generationSchema.jsonGrammar() == JSONGrammar(root: node, definitions: ["TreeNode": node]))
    }

    @Test func guides() throws {
        let root = DynamicGenerationSchema(name: "Guided", properties: [
            .init(name: "constant", schema: .init(type: String.self, guides: [.constant("fixed")])),
            .init(name: "choices", schema: .init(type: String.self, guides: [.anyOf(["a", "b", "c"]), .anyOf(["c", "b"])])),
            .init(name: "pattern", schema: .init(type: String.self, guides: [.pattern(/ab+c/)])),
            .init(name: "digits", schema: .init(type: [Int].self, guides: [.count(3), .element(.range(0...9))])),
            .init(name: "some", schema: .init(type: [Bool].self, guides: [.minimumCount(1), .maximumCount(4), .minimumCount(2)])),
            .init(name: "ratio", schema: .init(type: Float.self, guides: [.range(0...1)])),
            .init(name: "price", schema: .init(type: Decimal.self, guides: [.minimum(Decimal(string: "0.5")!), .maximum(10)])),
            .init(name: "score", schema: .init(type: Double.self, guides: [.minimum(-1), .minimum(2), .maximum(5)])),
            .init(name: "count", schema: .init(type: Int.self, guides: [.minimum(1), .maximum(9), .range(0...5)])),
            .init(name: "nothing", schema: .null),
            .init(name: "unguided", schema: .init(arrayOf: .init(type: String.self), minimumElements: 1, maximumElements: 2)),
        ])
        let grammar = try GenerationSchema(root: root, dependencies: []).jsonGrammar()
        #expect(grammar.root == .object(properties: [
            JSONProperty(name: "constant", shape: .string(.choices(["fixed"]))),
            JSONProperty(name: "choices", shape: .string(.choices(["b", "c"]))),
            JSONProperty(name: "pattern", shape: .string(.pattern("ab+c"))),
            JSONProperty(name: "digits", shape: .array(items: .integer(minimum: 0, maximum: 9), minimumCount: 3, maximumCount: 3)),
            JSONProperty(name: "some", shape: .array(items: .boolean, minimumCount: 2, maximumCount: 4)),
            JSONProperty(name: "ratio", shape: .number(minimum: 0, maximum: 1)),
            JSONProperty(name: "price", shape: .number(minimum: 0.5, maximum: 10)),
            JSONProperty(name: "score", shape: .number(minimum: 2, maximum: 5)),
            JSONProperty(name: "count", shape: .integer(minimum: 1, maximum: 5)),
            JSONProperty(name: "nothing", shape: .null),
            JSONProperty(name: "unguided", shape: .array(items: .string(.any), minimumCount: 1, maximumCount: 2)),
        ]))
        #expect(grammar.definitions.isEmpty)

        struct Code: Generable {
            static var generationSchema: GenerationSchema {
                GenerationSchema(type: Code.self, properties: [
                    .init(name: "code", type: String.self, guides: [try! Regex("[A-Z]{3}-\\d+")]),
                    .init(name: "alt", type: String?.self, guides: [/x|y/]),
                ])
            }
            init(_ content: GeneratedContent) throws {}
            var generatedContent: GeneratedContent { GeneratedContent(properties: [:]) }
        }
        #expect(try Code.generationSchema.jsonGrammar().root == .object(properties: [
            JSONProperty(name: "code", shape: .string(.pattern("[A-Z]{3}\\-\\d+"))),
            JSONProperty(name: "alt", shape: .string(.pattern("x|y")), isOptional: true),
        ]))
    }

    @Test func dynamicSchemaWithReferencesAndExplicitNil() throws {
        let pet = DynamicGenerationSchema(name: "Pet", anyOf: ["cat", "dog"])
        let person = DynamicGenerationSchema(name: "Person", representNilExplicitlyInGeneratedContent: true, properties: [
            .init(name: "name", schema: .init(type: String.self)),
            .init(name: "age", schema: .init(type: Int.self, guides: [.range(0...150)]), isOptional: true),
            .init(name: "pets", schema: .init(arrayOf: .init(referenceTo: "Pet"))),
            .init(name: "friend", schema: .init(referenceTo: "Person"), isOptional: true),
            .init(name: "recipe", schema: .init(type: Ingredient.self)),
        ])
        let grammar = try GenerationSchema(root: person, dependencies: [pet]).jsonGrammar()
        let root = JSONShape.object(properties: [
            JSONProperty(name: "name", shape: .string(.any)),
            JSONProperty(name: "age", shape: .anyOf([.integer(minimum: 0, maximum: 150), .null])),
            JSONProperty(name: "pets", shape: .array(items: .reference("Pet"), minimumCount: 0, maximumCount: nil)),
            JSONProperty(name: "friend", shape: .anyOf([.reference("Person"), .null])),
            JSONProperty(name: "recipe", shape: .reference("Ingredient")),
        ])
        #expect(grammar.root == root)
        #expect(grammar.definitions == [
            "Person": root,
            "Pet": .string(.choices(["cat", "dog"])),
            "Ingredient": .object(properties: [
                JSONProperty(name: "name", shape: .string(.any)),
                JSONProperty(name: "grams", shape: .number(minimum: 0, maximum: nil)),
            ]),
        ])
    }

    @Test func choicesOfTypes() throws {
        struct Either: Generable {
            static var generationSchema: GenerationSchema { GenerationSchema(type: Either.self, anyOf: [Ingredient.self, Int.self]) }
            init(_ content: GeneratedContent) throws {}
            var generatedContent: GeneratedContent { GeneratedContent(kind: .null) }
        }
        let grammar = try Either.generationSchema.jsonGrammar()
        #expect(grammar.root == .anyOf([.reference("Ingredient"), .integer(minimum: nil, maximum: nil)]))
        #expect(grammar.definitions.keys.sorted() == ["Ingredient"])
    }

    @Test func nestedNamedDynamicSchemaCanBeReferenced() throws {
        let address = DynamicGenerationSchema(name: "Address", properties: [.init(name: "city", schema: .init(type: String.self))])
        let root = DynamicGenerationSchema(name: "Order", properties: [
            .init(name: "shipping", schema: address),
            .init(name: "billing", schema: .init(referenceTo: "Address")),
        ])
        let grammar = try GenerationSchema(root: root, dependencies: []).jsonGrammar()
        let addressShape = JSONShape.object(properties: [JSONProperty(name: "city", shape: .string(.any))])
        #expect(grammar.root == .object(properties: [
            JSONProperty(name: "shipping", shape: addressShape),
            JSONProperty(name: "billing", shape: .reference("Address")),
        ]))
        #expect(grammar.definitions == ["Address": addressShape])
    }

    /// Guides written the way FM27 code writes them, with the element type inferred.
    @Test func fm27StyleGuideInference() throws {
        struct Tags: Generable {
            var tags: [String]
            static var generationSchema: GenerationSchema {
                GenerationSchema(type: Tags.self, properties: [
                    GenerationSchema.Property(
                        name: "tags", description: "Labels", type: [String].self,
                        guides: [.count(2), .element(.anyOf(["red", "green"]))]),
                    GenerationSchema.Property(name: "size", type: Int?.self, guides: [.maximum(3)]),
                ])
            }
            init(_ content: GeneratedContent) throws { tags = try content.value(forProperty: "tags") }
            var generatedContent: GeneratedContent { GeneratedContent(properties: ["tags": tags]) }
        }
        #expect(try Tags.generationSchema.jsonGrammar().root == .object(properties: [
            JSONProperty(name: "tags", shape: .array(items: .string(.choices(["red", "green"])), minimumCount: 2, maximumCount: 2)),
            JSONProperty(name: "size", shape: .integer(minimum: nil, maximum: 3), isOptional: true),
        ]))
    }

    @Test func decodedSchemaWithoutOrderOrWithTypeArrays() throws {
        let text = #"{"type":"object","properties":{"b":{"type":["integer","null"]},"a":{"type":"boolean"}},"required":["a"]}"#
        let schema = try JSONDecoder().decode(GenerationSchema.self, from: Data(text.utf8))
        #expect(try schema.jsonGrammar().root == .object(properties: [
            JSONProperty(name: "a", shape: .boolean),
            JSONProperty(name: "b", shape: .anyOf([.integer(minimum: nil, maximum: nil), .null]), isOptional: true),
        ]))
    }
}
