import Quanta

// FM27 types as FM27 code declares them: `@Generable` writes each type's schema, `init(_:)`,
// `generatedContent` and `PartiallyGenerated`. MacroSchemaTests checks that the schemas equal
// the ones the hand-written conformances these replaced produced.

/// An enum-like string: a closed set of values.
@Generable(description: "The cuisine")
enum Cuisine: String, CaseIterable {
    case italian, thai, mexican
}

@Generable
struct Ingredient: Equatable {
    var name: String
    @Guide(description: "Weight in grams", .minimum(0)) var grams: Double
}

@Generable(description: "A recipe")
struct Recipe: Equatable {
    var title: String
    var cuisine: Cuisine
    @Guide(.range(1...8)) var servings: Int
    @Guide(.count(1...10)) var ingredients: [Ingredient]
    @Guide(description: "Optional tips") var notes: String?
}

/// A recursive type: its schema refers to itself through `$defs`.
@Generable
struct TreeNode {
    var value: Int
    var children: [TreeNode]
}
