import Quanta

// The idiom for `Generable` types without the `@Generable` macro (a SwiftPM macro target cannot
// use the toolchain's bundled SwiftSyntax without `unsafeFlags`, which would stop other packages
// from depending on Quanta by version): the same members the macro would write, by hand. FM27 code written with the macro
// becomes, for each type, a schema listing the properties and their guides, `init(_:)` reading
// each property, `generatedContent` writing them, and a `PartiallyGenerated` struct whose
// properties are optional (and partial themselves) for streaming.

/// An enum-like string: a closed set of values.
enum Cuisine: String, Generable, CaseIterable {
    case italian, thai, mexican

    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Cuisine.self, description: "The cuisine", anyOf: allCases.map(\.rawValue))
    }

    init(_ content: GeneratedContent) throws {
        guard let value = Cuisine(rawValue: try content.value(String.self)) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "Unknown cuisine \(content.jsonString)"))
        }
        self = value
    }

    var generatedContent: GeneratedContent { GeneratedContent(rawValue) }
}

struct Ingredient: Generable, Equatable {
    var name: String
    var grams: Double

    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Ingredient.self, properties: [
            .init(name: "name", type: String.self),
            .init(name: "grams", description: "Weight in grams", type: Double.self, guides: [.minimum(0)]),
        ])
    }

    init(name: String, grams: Double) {
        self.name = name
        self.grams = grams
    }

    init(_ content: GeneratedContent) throws {
        name = try content.value(forProperty: "name")
        grams = try content.value(forProperty: "grams")
    }

    var generatedContent: GeneratedContent { GeneratedContent(properties: ["name": name, "grams": grams]) }

    struct PartiallyGenerated: ConvertibleFromGeneratedContent, Identifiable {
        var id: GenerationID
        var name: String.PartiallyGenerated?
        var grams: Double.PartiallyGenerated?

        init(_ content: GeneratedContent) throws {
            id = content.id ?? GenerationID()
            name = try content.value(String?.self, forProperty: "name")
            grams = try content.value(Double?.self, forProperty: "grams")
        }
    }
}

struct Recipe: Generable, Equatable {
    var title: String
    var cuisine: Cuisine
    var servings: Int
    var ingredients: [Ingredient]
    var notes: String?

    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Recipe.self, description: "A recipe", properties: [
            .init(name: "title", type: String.self),
            .init(name: "cuisine", type: Cuisine.self),
            .init(name: "servings", type: Int.self, guides: [.range(1...8)]),
            .init(name: "ingredients", type: [Ingredient].self, guides: [.count(1...10)]),
            .init(name: "notes", description: "Optional tips", type: String?.self),
        ])
    }

    init(title: String, cuisine: Cuisine, servings: Int, ingredients: [Ingredient], notes: String? = nil) {
        self.title = title
        self.cuisine = cuisine
        self.servings = servings
        self.ingredients = ingredients
        self.notes = notes
    }

    init(_ content: GeneratedContent) throws {
        title = try content.value(forProperty: "title")
        cuisine = try content.value(forProperty: "cuisine")
        servings = try content.value(forProperty: "servings")
        ingredients = try content.value(forProperty: "ingredients")
        notes = try content.value(String?.self, forProperty: "notes")
    }

    var generatedContent: GeneratedContent {
        var properties: [(String, any ConvertibleToGeneratedContent)] = [
            ("title", title), ("cuisine", cuisine), ("servings", servings), ("ingredients", ingredients),
        ]
        // Nil is left out, as the schema says (it does not represent nil explicitly).
        if let notes { properties.append(("notes", notes)) }
        return GeneratedContent(properties: properties, uniquingKeysWith: { first, _ in first })
    }

    struct PartiallyGenerated: ConvertibleFromGeneratedContent, Identifiable {
        var id: GenerationID
        var title: String.PartiallyGenerated?
        var cuisine: Cuisine.PartiallyGenerated?
        var servings: Int.PartiallyGenerated?
        var ingredients: [Ingredient].PartiallyGenerated?
        var notes: String.PartiallyGenerated?

        init(_ content: GeneratedContent) throws {
            id = content.id ?? GenerationID()
            title = try content.value(String?.self, forProperty: "title")
            // A cut enum value ("ita") is not a case yet.
            cuisine = try? content.value(Cuisine?.self, forProperty: "cuisine")
            servings = try content.value(Int?.self, forProperty: "servings")
            ingredients = try content.value([Ingredient.PartiallyGenerated]?.self, forProperty: "ingredients")
            notes = try content.value(String?.self, forProperty: "notes")
        }
    }
}

/// A recursive type: its schema refers to itself through `$defs`.
struct TreeNode: Generable {
    var value: Int
    var children: [TreeNode]

    static var generationSchema: GenerationSchema {
        GenerationSchema(type: TreeNode.self, properties: [
            .init(name: "value", type: Int.self),
            .init(name: "children", type: [TreeNode].self),
        ])
    }

    init(_ content: GeneratedContent) throws {
        value = try content.value(forProperty: "value")
        children = try content.value(forProperty: "children")
    }

    var generatedContent: GeneratedContent { GeneratedContent(properties: ["value": value, "children": children]) }
}
