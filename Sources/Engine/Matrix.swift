/// A row-major fp32 matrix that owns its memory: the activation buffers of a forward pass
/// (`[tokens][features]`). Allocated once per session and reused, so the decode loop does not
/// allocate. Architectures hold these and pass them to ops; only Engine touches the pointer.
public final class Matrix: @unchecked Sendable {
    public let rows: Int
    public let columns: Int
    let base: UnsafeMutablePointer<Float>
    /// The matrix whose memory a row view reads (kept alive by it); nil when this one owns its memory.
    private let owner: Matrix?

    /// A zero-filled `rows × columns` matrix.
    public init(rows: Int, columns: Int) {
        precondition(rows > 0 && columns > 0, "matrix must be non-empty")
        self.rows = rows
        self.columns = columns
        base = .allocate(capacity: rows * columns)
        base.initialize(repeating: 0, count: rows * columns)
        owner = nil
    }

    /// A one-row matrix over row `row` of `matrix`, sharing its memory: an op on the view reads and
    /// writes that row (a batch's row handed to a per-sequence op).
    public convenience init(row: Int, of matrix: Matrix) {
        self.init(rows: row..<row + 1, of: matrix)
    }

    /// A matrix over rows `rows` of `matrix`, sharing its memory (one sequence's rows of a batch
    /// that holds several).
    public init(rows range: Range<Int>, of matrix: Matrix) {
        precondition(!range.isEmpty && range.lowerBound >= 0 && range.upperBound <= matrix.rows,
                     "rows \(range) out of 0..<\(matrix.rows)")
        rows = range.count
        columns = matrix.columns
        base = matrix.base + range.lowerBound * matrix.columns
        owner = matrix.owner ?? matrix
    }

    deinit { if owner == nil { base.deallocate() } }

    /// Pointer to the first element of `row`.
    func row(_ row: Int) -> UnsafeMutablePointer<Float> {
        precondition(row >= 0 && row < rows, "row \(row) out of 0..<\(rows)")
        return base + row * columns
    }

    /// A copy of one row.
    public func copyRow(_ row: Int) -> [Float] {
        Array(UnsafeBufferPointer(start: self.row(row), count: columns))
    }

    /// Overwrites one row with `values` (exactly `columns` long).
    public func setRow(_ row: Int, _ values: [Float]) {
        precondition(values.count == columns, "row length mismatch")
        values.withUnsafeBufferPointer { self.row(row).update(from: $0.baseAddress!, count: columns) }
    }
}
