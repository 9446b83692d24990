@Generable
struct Broken {
    @Guide(description: "never closed) var name: String
}
