@Generable
struct Pair<T> {
    var first: T
}
