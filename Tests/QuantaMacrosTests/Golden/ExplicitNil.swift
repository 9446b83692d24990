@Generable(representNilExplicitlyInGeneratedContent: true)
struct Contact {
    var name: String
    var email: Optional<String>
}
