// Sets of Unicode scalar values as sorted, disjoint, non-adjacent ranges: what one regex step matches.
import JSON

/// A set of Unicode scalar values (surrogates never included).
struct ScalarRanges: Sendable, Hashable {
    /// Sorted, disjoint and non-adjacent.
    private(set) var ranges: [ClosedRange<UInt32>]

    static let empty = ScalarRanges(normalizing: [])
    /// Every Unicode scalar value.
    static let all = ScalarRanges(normalizing: [0...0xD7FF, 0xE000...0x10FFFF])

    init(normalizing input: [ClosedRange<UInt32>]) {
        var merged: [ClosedRange<UInt32>] = []
        for range in input.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        // Surrogates are not scalars; cutting them here keeps every member encodable.
        ranges = merged.flatMap { ScalarRanges.removingSurrogates($0) }
    }

    init(_ scalar: UInt32) { self.init(normalizing: [scalar...scalar]) }

    private static func removingSurrogates(_ range: ClosedRange<UInt32>) -> [ClosedRange<UInt32>] {
        var pieces: [ClosedRange<UInt32>] = []
        if range.lowerBound < 0xD800 { pieces.append(range.lowerBound...min(range.upperBound, 0xD7FF)) }
        if range.upperBound > 0xDFFF { pieces.append(max(range.lowerBound, 0xE000)...range.upperBound) }
        return pieces
    }

    var isEmpty: Bool { ranges.isEmpty }

    func union(_ other: ScalarRanges) -> ScalarRanges { ScalarRanges(normalizing: ranges + other.ranges) }

    /// Every scalar not in this set.
    var complement: ScalarRanges {
        var pieces: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for range in ranges {
            if range.lowerBound > next { pieces.append(next...(range.lowerBound - 1)) }
            next = range.upperBound + 1
        }
        if next <= 0x10FFFF { pieces.append(next...0x10FFFF) }
        return ScalarRanges(normalizing: pieces)
    }

    func contains(_ scalar: UInt32) -> Bool {
        var low = 0, high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].upperBound < scalar { low = mid + 1 } else { high = mid }
        }
        return low < ranges.count && ranges[low].lowerBound <= scalar
    }

    /// The smallest member within `bounds`, if any.
    func smallest(in bounds: ClosedRange<UInt32>) -> UInt32? {
        for range in ranges where range.upperBound >= bounds.lowerBound {
            if range.lowerBound > bounds.upperBound { return nil }
            return max(range.lowerBound, bounds.lowerBound)
        }
        return nil
    }

    /// The member that takes the fewest bytes inside a JSON string, with that byte count.
    var cheapestInJSONString: (scalar: UInt32, cost: Int)? {
        // Plain printable ASCII costs one byte; `"` and `\` need a backslash.
        for candidate in [0x20...0x21, 0x23...0x5B, 0x5D...0x7E] as [ClosedRange<UInt32>] {
            if let scalar = smallest(in: candidate) { return (scalar, 1) }
        }
        var best: (scalar: UInt32, cost: Int)?
        for scalar: UInt32 in [0x22, 0x5C, 0x08, 0x0C, 0x0A, 0x0D, 0x09] where contains(scalar) {
            return (scalar, 2)
        }
        let tiers: [(ClosedRange<UInt32>, Int)] = [(0x80...0x7FF, 2), (0x800...0xFFFF, 3), (0x0...0x1F, 6), (0x10000...0x10FFFF, 4)]
        for (tier, cost) in tiers {
            if let scalar = smallest(in: tier), cost < (best?.cost ?? .max) { best = (scalar, cost) }
        }
        return best
    }
}

/// The bytes that spell `scalar` inside a JSON string, using the shortest escape where one is needed.
func jsonStringBytes(of scalar: UInt32) -> [UInt8] {
    if let scalar = Unicode.Scalar(scalar), let escaped = JSONString.escape(scalar) { return Array(escaped.utf8) }
    return utf8Bytes(of: scalar)
}

/// UTF-8 encoding of a scalar value.
func utf8Bytes(of scalar: UInt32) -> [UInt8] {
    switch scalar {
    case 0..<0x80: return [UInt8(scalar)]
    case 0x80..<0x800: return [UInt8(0xC0 | scalar >> 6), UInt8(0x80 | scalar & 0x3F)]
    case 0x800..<0x10000:
        return [UInt8(0xE0 | scalar >> 12), UInt8(0x80 | (scalar >> 6) & 0x3F), UInt8(0x80 | scalar & 0x3F)]
    default:
        return [UInt8(0xF0 | scalar >> 18), UInt8(0x80 | (scalar >> 12) & 0x3F),
                UInt8(0x80 | (scalar >> 6) & 0x3F), UInt8(0x80 | scalar & 0x3F)]
    }
}
