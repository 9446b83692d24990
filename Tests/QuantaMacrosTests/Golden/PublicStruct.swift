@Generable
public struct Point: Sendable {
    public var x: Int
    public var y: Int
    private(set) var tags: [String] = []
    public init(x: Int, y: Int) { self.x = x; self.y = y }
}
