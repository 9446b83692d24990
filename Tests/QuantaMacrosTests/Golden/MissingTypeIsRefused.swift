@Generable
struct Counter {
    var count = 0
}
