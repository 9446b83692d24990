import Foundation

/// Identifies one generated value across the snapshots of a stream, so a UI can tell that a
/// partially generated element and its later, longer version are the same element.
public struct GenerationID: Sendable, Hashable {
    /// Random, so ids from different generations never collide.
    private let value: UUID

    /// A new, unique id.
    public init() {
        value = UUID()
    }
}
