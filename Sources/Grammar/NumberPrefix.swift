// A number being written, and the range arithmetic that decides which digits may follow.
//
// Values are tracked as a sign and a magnitude so negative numbers reuse the positive reasoning:
// a prefix can continue only if some completion's magnitude lies in the bounds mirrored for its sign.

/// What a number node allows: bounds and whether a fraction may be written.
struct NumberRule: Sendable, Hashable {
    var minimum: Double
    var maximum: Double
    var allowsFraction: Bool

    static let maximumIntegerDigits = 15
    static let maximumFractionDigits = 6
}

/// The bytes of a number written so far.
struct NumberPrefix: Sendable, Hashable {
    var isNegative = false
    var integerDigits = 0
    var integerValue = 0
    /// nil until `.` is written.
    var fractionDigits: Int?
    var fractionValue = 0

    /// The prefix after `byte`, if `byte` continues it in a way some completion can satisfy `rule`.
    func appending(_ byte: UInt8, rule: NumberRule) -> NumberPrefix? {
        var next = self
        switch byte {
        case UInt8(ascii: "-"):
            guard !isNegative, integerDigits == 0 else { return nil }
            next.isNegative = true
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            let digit = Int(byte - UInt8(ascii: "0"))
            if let fraction = fractionDigits {
                guard fraction < NumberRule.maximumFractionDigits else { return nil }
                next.fractionDigits = fraction + 1
                next.fractionValue = fractionValue * 10 + digit
            } else {
                // A leading zero is the whole integer part.
                guard integerDigits < NumberRule.maximumIntegerDigits, !(integerDigits == 1 && integerValue == 0) else { return nil }
                next.integerDigits += 1
                next.integerValue = integerValue * 10 + digit
            }
        case UInt8(ascii: "."):
            guard rule.allowsFraction, integerDigits > 0, fractionDigits == nil else { return nil }
            next.fractionDigits = 0
        default:
            return nil
        }
        return next.shortestCompletion(rule: rule) == nil ? nil : next
    }

    /// Whether the number may end here: complete syntax and a value within the bounds.
    func isValidEnd(rule: NumberRule) -> Bool {
        guard integerDigits > 0, fractionDigits != 0 else { return false }
        return shortestCompletion(rule: rule)?.isEmpty == true
    }

    /// The fewest bytes that make this a valid number within `rule`, or nil if none exist.
    func shortestCompletion(rule: NumberRule) -> [UInt8]? {
        // Magnitude bounds for this sign; negative numbers must not be zero ("-0" is not generated).
        let low = isNegative ? -rule.maximum : rule.minimum
        let high = isNegative ? -rule.minimum : rule.maximum
        var best: [UInt8]?
        for option in completionShapes(rule: rule) {
            if let best, best.count <= option.length { continue }
            if let bytes = smallestCompletion(option, low: low, high: high) { best = bytes }
        }
        return best
    }

    /// One way to finish: this many more integer digits, then (if `fraction > 0`) `.` and fraction digits.
    private struct Shape {
        var moreIntegerDigits: Int
        var totalFractionDigits: Int
        var writesDot: Bool
        var length: Int
    }

    private func completionShapes(rule: NumberRule) -> [Shape] {
        var shapes: [Shape] = []
        let maxFraction = rule.allowsFraction ? NumberRule.maximumFractionDigits : 0
        if let fraction = fractionDigits {
            for total in max(fraction, 1)...max(maxFraction, 1) where total <= maxFraction {
                shapes.append(Shape(moreIntegerDigits: 0, totalFractionDigits: total, writesDot: false, length: total - fraction))
            }
            return shapes
        }
        let leadingZero = integerDigits == 1 && integerValue == 0
        let maxMore = leadingZero ? 0 : NumberRule.maximumIntegerDigits - integerDigits
        for more in (integerDigits == 0 ? 1 : 0)...max(maxMore, 0) where more <= maxMore {
            shapes.append(Shape(moreIntegerDigits: more, totalFractionDigits: 0, writesDot: false, length: more))
            for fraction in stride(from: 1, through: maxFraction, by: 1) {
                shapes.append(Shape(moreIntegerDigits: more, totalFractionDigits: fraction, writesDot: true, length: more + 1 + fraction))
            }
        }
        return shapes
    }

    /// The completion of `shape` with the smallest magnitude in [low, high], as bytes.
    private func smallestCompletion(_ shape: Shape, low: Double, high: Double) -> [UInt8]? {
        let scale = power10(shape.totalFractionDigits)
        // The reachable magnitudes, in units of 10^-fraction: a contiguous run of integers.
        let integerLow: Double, integerHigh: Double
        if integerDigits == 0 {
            integerLow = shape.moreIntegerDigits == 1 ? 0 : power10(shape.moreIntegerDigits - 1)
            integerHigh = power10(shape.moreIntegerDigits) - 1
        } else {
            integerLow = Double(integerValue) * power10(shape.moreIntegerDigits)
            integerHigh = integerLow + power10(shape.moreIntegerDigits) - 1
        }
        var unitsLow = integerLow * scale, unitsHigh = integerHigh * scale + scale - 1
        if let fraction = fractionDigits {
            let unwritten = power10(shape.totalFractionDigits - fraction)
            unitsLow = (Double(integerValue) * power10(fraction) + Double(fractionValue)) * unwritten
            unitsHigh = unitsLow + unwritten - 1
        }
        // Bounds like 0.57 are not exact in binary (0.57 * 100 = 56.99999999999999); a tolerance far
        // below the 10^-6 grid keeps the bound itself reachable.
        let lowUnits = low * scale, highUnits = high * scale
        var candidate = max(unitsLow, (lowUnits - abs(lowUnits) * 1e-12).rounded(.up))
        if isNegative, candidate == 0 { candidate = 1 }
        guard candidate <= min(unitsHigh, (highUnits + abs(highUnits) * 1e-12).rounded(.down)) else { return nil }
        return completionBytes(units: candidate, shape: shape)
    }

    private func completionBytes(units: Double, shape: Shape) -> [UInt8] {
        let scale = power10(shape.totalFractionDigits)
        let integerPart = (units / scale).rounded(.down)
        let fractionPart = units - integerPart * scale
        var bytes: [UInt8] = []
        if fractionDigits == nil {
            if shape.moreIntegerDigits > 0 {
                let newDigits = Int(integerPart) % Int(power10(shape.moreIntegerDigits))
                bytes += digits(newDigits, width: shape.moreIntegerDigits)
            }
            if shape.writesDot { bytes.append(UInt8(ascii: ".")) }
        }
        let written = fractionDigits ?? 0
        let newFraction = shape.totalFractionDigits - written
        if newFraction > 0 {
            bytes += digits(Int(fractionPart) % Int(power10(newFraction)), width: newFraction)
        }
        return bytes
    }

    private func digits(_ value: Int, width: Int) -> [UInt8] {
        var result = [UInt8](repeating: UInt8(ascii: "0"), count: width)
        var rest = value
        for index in stride(from: width - 1, through: 0, by: -1) {
            result[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        return result
    }

    private func power10(_ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<max(exponent, 0) { result *= 10 }
        return result
    }
}
