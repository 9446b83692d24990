@Generable
final class Box {
    var size: Int = 0
}
