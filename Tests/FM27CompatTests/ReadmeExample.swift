// The Swift example of README.md ("Use it from Swift"), compiled here so it cannot rot:
// `ReadmeExampleTests` checks that README.md holds the lines between the two markers verbatim
// and runs `suggestDinner` on the default model when it has been fetched.
// README example begins
import Foundation
import Quanta  // on Apple platforms: import FoundationModels

@Generable(description: "A dish to cook tonight")
struct Dish {
    @Guide(description: "The dish's name")
    var name: String

    @Guide(description: "Minutes from start to table", .range(5...90))
    var minutes: Int

    @Guide(description: "What to buy", .count(2...6))
    var ingredients: [String]
}

func suggestDinner(modelFile: URL) async throws -> Dish {
    // `LanguageModelSession(instructions:)` without a model would use SystemLanguageModel.default,
    // the file `Models/fetch --user default` installs.
    let model = try await LocalLanguageModel(contentsOf: modelFile)
    let session = LanguageModelSession(model: model, instructions: "You are a cook. Answer briefly.")
    let options = GenerationOptions(maximumResponseTokens: 120)

    // Guided generation: constrained decoding makes every answer a valid Dish.
    let dish = try await session.respond(to: "Suggest a quick pasta dish.", generating: Dish.self, options: options).content
    print("\(dish.name), \(dish.minutes) min: \(dish.ingredients.joined(separator: ", "))")

    // Streaming: each snapshot holds the whole answer so far. The session keeps the conversation.
    var shown = ""
    for try await snapshot in session.streamResponse(to: "Why is it quick to make?", options: options) {
        print(snapshot.content.dropFirst(shown.count), terminator: "")
        shown = snapshot.content
    }
    print()
    return dish
}
// README example ends
