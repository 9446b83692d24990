// The Codable coder over JSONValue against Foundation's JSONEncoder and JSONDecoder as the
// independent reference: on random values of a type that uses every container, every primitive,
// optionals, dictionaries with string and integer keys, enums with associated values, super
// encoders, Data, URL and Date, each side reads what the other writes, both write the same tree,
// and on random damage to the document both fail alike (the same kind of DecodingError at the
// same coding path) or read the same value. Time cap: 10 s.
import Foundation
import JSON
import TestSupport
import Testing

/// An enum as Swift synthesises its coding: `{"case": {"_0": ..., "label": ...}}`.
enum Choice: Codable, Equatable {
    case none
    case one(Int)
    case pair(String, label: Double?)
    case nested(inner: [Choice])
}

/// A type coded by hand through nested containers and all three kinds of super encoder.
struct Layers: Codable, Equatable {
    var base: Int16
    var parts: [String]
    var tail: UInt8?

    private enum Key: String, CodingKey { case base, list, extra }
    private enum Inner: String, CodingKey { case tail }

    init(base: Int16, parts: [String], tail: UInt8?) {
        self.base = base
        self.parts = parts
        self.tail = tail
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        var base = c.superEncoder().singleValueContainer()   // under "super"
        try base.encode(self.base)
        var list = c.nestedUnkeyedContainer(forKey: .list)
        try list.encode(parts.count)
        for part in parts { try list.encode(part) }
        var inner = list.nestedContainer(keyedBy: Inner.self)
        try inner.encodeIfPresent(tail, forKey: .tail)
        var element = list.superEncoder().unkeyedContainer()
        try element.encodeNil()
        var extra = c.superEncoder(forKey: .extra).container(keyedBy: Inner.self)
        try extra.encode(tail == nil, forKey: .tail)
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        base = try c.superDecoder().singleValueContainer().decode(Int16.self)
        var list = try c.nestedUnkeyedContainer(forKey: .list)
        let count = try list.decode(Int.self)
        parts = try (0..<max(0, count)).map { _ in try list.decode(String.self) }
        tail = try list.nestedContainer(keyedBy: Inner.self).decodeIfPresent(UInt8.self, forKey: .tail)
        var element = try list.superDecoder().unkeyedContainer()
        guard try element.decodeNil(), element.isAtEnd, list.isAtEnd else {
            throw DecodingError.dataCorrupted(.init(codingPath: list.codingPath, debugDescription: "extra elements"))
        }
        let extra = try c.superDecoder(forKey: .extra).container(keyedBy: Inner.self)
        guard try extra.decode(Bool.self, forKey: .tail) == (tail == nil) else {
            throw DecodingError.dataCorrupted(.init(codingPath: extra.codingPath, debugDescription: "extra.tail disagrees"))
        }
    }
}

/// Every primitive and shape, synthesised coding.
struct Sample: Codable, Equatable {
    var text: String
    var flag: Bool
    var int: Int, int8: Int8, int16: Int16, int32: Int32, int64: Int64
    var uint: UInt, uint8: UInt8, uint16: UInt16, uint32: UInt32, uint64: UInt64
    var double: Double
    var float: Float
    var optional: String?
    var optionalNumber: Double?
    var numbers: [Double]
    var maybes: [Int?]
    var table: [String: Int]
    var byNumber: [Int: String]
    var choice: Choice
    var date: Date
    var data: Data
    var url: URL
    var layers: Layers
    var children: [Sample]
}

/// Random values whose text has every kind of character JSON escapes or passes through.
struct SampleMaker {
    var random: SplitMix64

    mutating func pick<T>(_ options: [T]) -> T { options[Int.random(in: 0..<options.count, using: &random)] }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &random) < p }

    mutating func string() -> String {
        let pieces = ["a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\r", "\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "é", "中",
                      "\u{2028}", "\u{FFFD}", "\u{FEFF}", "😀", "𝄞", "\u{10FFFF}", "e\u{301}", "{", "]", ":", ","]
        return (0..<Int.random(in: 0...8, using: &random)).map { _ in pick(pieces) }.joined()
    }

    mutating func integer<I: FixedWidthInteger>(_: I.Type) -> I {
        chance(0.3) ? pick([I.min, I.max, 0, 1]) : I.random(in: I.min...I.max, using: &random)
    }

    mutating func double() -> Double {
        if chance(0.4) {
            return pick([0, -0.0, 1, -1, 0.1, 1e15, 1e16, 123456789012345680, 9007199254740994, 1e-7, .leastNonzeroMagnitude,
                         Double.greatestFiniteMagnitude, -Double.leastNormalMagnitude, 2.5])
        }
        while true {
            let value = Double(bitPattern: random.next())
            if value.isFinite { return value }
        }
    }

    mutating func float() -> Float {
        if chance(0.4) { return pick([0, -0.0, 0.1, 1, 16_777_215, Float.greatestFiniteMagnitude, Float.leastNonzeroMagnitude]) }
        while true {
            let value = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
            if value.isFinite { return value }
        }
    }

    mutating func choice(depth: Int) -> Choice {
        switch Int.random(in: 0..<(depth > 0 ? 4 : 3), using: &random) {
        case 0: return .none
        case 1: return .one(integer(Int.self))
        case 2: return .pair(string(), label: chance(0.5) ? double() : nil)
        default: return .nested(inner: (0..<Int.random(in: 0...2, using: &random)).map { _ in choice(depth: depth - 1) })
        }
    }

    mutating func sample(depth: Int) -> Sample {
        Sample(
            text: string(), flag: chance(0.5),
            int: integer(Int.self), int8: integer(Int8.self), int16: integer(Int16.self), int32: integer(Int32.self), int64: integer(Int64.self),
            uint: integer(UInt.self), uint8: integer(UInt8.self), uint16: integer(UInt16.self), uint32: integer(UInt32.self),
            uint64: integer(UInt64.self), double: double(), float: float(),
            optional: chance(0.5) ? string() : nil, optionalNumber: chance(0.5) ? double() : nil,
            numbers: (0..<Int.random(in: 0...3, using: &random)).map { _ in double() },
            maybes: (0..<Int.random(in: 0...3, using: &random)).map { _ in chance(0.5) ? integer(Int.self) : nil },
            table: Dictionary((0..<Int.random(in: 0...3, using: &random)).map { _ in (string(), integer(Int.self)) }) { a, _ in a },
            byNumber: Dictionary((0..<Int.random(in: 0...3, using: &random)).map { _ in (integer(Int.self), string()) }) { a, _ in a },
            choice: choice(depth: 2),
            date: Date(timeIntervalSinceReferenceDate: chance(0.5) ? double() : Double(integer(Int32.self))),
            data: Data((0..<Int.random(in: 0...7, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }),
            url: URL(string: pick(["https://example.com/a%20b?q=%C3%A9#top", "file:///tmp/x.png", "http://[::1]:8080/", "mailto:a@b.c"]))!,
            layers: Layers(base: integer(Int16.self), parts: (0..<Int.random(in: 0...2, using: &random)).map { _ in string() },
                           tail: chance(0.5) ? integer(UInt8.self) : nil),
            children: depth > 0 ? (0..<Int.random(in: 0...2, using: &random)).map { _ in sample(depth: depth - 1) } : [])
    }
}

/// `value` with every object's members sorted by key, to compare trees whose writers order
/// members differently.
func sortedMembers(_ value: JSONValue) -> JSONValue {
    switch value {
    case let .array(elements): return .array(elements.map(sortedMembers))
    case let .object(members): return .object(members.map { ($0.key, sortedMembers($0.value)) }.sorted { $0.0 < $1.0 })
    default: return value
    }
}

/// How a decoding ended: the value, or the error's kind and coding path.
enum Outcome: Equatable {
    case value(Sample)
    case failure(kind: String, path: [String])

    init(_ decode: () throws -> Sample) {
        do { self = .value(try decode()) } catch let error as DecodingError {
            let (kind, context): (String, DecodingError.Context)
            switch error {
            case let .keyNotFound(key, c): (kind, context) = ("keyNotFound \(key.stringValue)", c)
            case let .typeMismatch(_, c): (kind, context) = ("typeMismatch", c)
            case let .valueNotFound(_, c): (kind, context) = ("valueNotFound", c)
            case let .dataCorrupted(c): (kind, context) = ("dataCorrupted", c)
            @unknown default: (kind, context) = ("unknown", .init(codingPath: [], debugDescription: ""))
            }
            self = .failure(kind: kind, path: context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue })
        } catch {
            self = .failure(kind: "\(type(of: error))", path: [])
        }
    }

    /// Whether our outcome agrees with Foundation's: equal, or both `dataCorrupted` where
    /// Foundation names no path (it reports a number out of its type's range as "not valid JSON"
    /// at the root; we name the member).
    func agrees(withFoundations theirs: Outcome) -> Bool {
        if self == theirs { return true }
        guard case .failure("dataCorrupted", _) = self, case .failure("dataCorrupted", []) = theirs else { return false }
        return true
    }
}

@Suite struct JSONCodableTests {
    static let seeds: [UInt64] = Array(1...40)

    @Test(arguments: seeds) func foundationReadsOursAndWeReadFoundations(_ seed: UInt64) throws {
        var maker = SampleMaker(random: SplitMix64(seed: seed))
        let value = maker.sample(depth: 2)
        let ours = try JSONValueEncoder().encode(value)
        let theirs = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(Sample.self, from: Data(ours.jsonText.utf8)) == value)
        #expect(try JSONDecoder().decode(Sample.self, from: Data(ours.indentedText.utf8)) == value)
        #expect(try JSONValueDecoder().decode(Sample.self, from: String(decoding: theirs, as: UTF8.self)) == value)
        #expect(try JSONValueDecoder().decode(Sample.self, from: ours) == value)
        // The same tree, member order aside.
        #expect(sortedMembers(ours) == sortedMembers(try JSONValue(parsing: String(decoding: theirs, as: UTF8.self))))
        // Sorted keys are sorted at every level.
        #expect(try JSONValueEncoder(sortedKeys: true).encode(value) == sortedMembers(ours))
    }

    /// Damage at a random place (a member removed, a value replaced by one of another kind,
    /// an out-of-range number, invalid Base64, text cut short): Foundation and we both read the
    /// same value or both fail the same way at the same coding path.
    @Test(arguments: seeds) func damagedDocumentsFailAsFoundationFails(_ seed: UInt64) throws {
        var maker = SampleMaker(random: SplitMix64(seed: seed &* 7919))
        let tree = try JSONValueEncoder().encode(maker.sample(depth: 1))
        let replacements: [JSONValue] = [.null, .string("x"), .number(1.5), .integer(300), .integer(-1), .bool(true), .array([]),
                                         .object([]), .number(1e300), .number(.infinity, text: "1e400"), .string("@@")]
        for round in 0..<30 {
            let damaged: String
            if round == 29 {
                let text = tree.jsonText
                damaged = String(text.prefix(Int.random(in: 0..<text.count, using: &maker.random)))
            } else {
                var places = paths(in: tree)
                places.removeFirst()   // the root
                let place = maker.pick(places)
                damaged = replacing(tree, at: place[...], with: maker.chance(0.2) ? nil : maker.pick(replacements))!.jsonText
            }
            let theirs = Outcome { try JSONDecoder().decode(Sample.self, from: Data(damaged.utf8)) }
            let ours = Outcome { try JSONValueDecoder().decode(Sample.self, from: damaged) }
            #expect(ours.agrees(withFoundations: theirs), "\(ours) vs \(theirs)")
        }
    }

    @Test func errorsAreOneLineWithTheCodingPath() throws {
        var maker = SampleMaker(random: SplitMix64(seed: 3))
        let original = try JSONValueEncoder().encode(maker.sample(depth: 1))
        let tree = replacing(original, at: (["layers", "list", 0] as [AnyHashable])[...], with: .string("two"))!
        let mismatch = try #require(thrown { try JSONValueDecoder().decode(Sample.self, from: tree) })
        #expect(codingErrorSummary(mismatch) == "layers.list[0]: expected Int, found a string")
        let missing = try #require(thrown {
            try JSONValueDecoder().decode(Sample.self, from: replacing(original, at: (["children"] as [AnyHashable])[...], with: nil)!)
        })
        #expect(codingErrorSummary(missing) == "missing children")
        let notJSON = try #require(thrown { try JSONValueDecoder().decode(Sample.self, from: "{\"text\": tru") })
        #expect(codingErrorSummary(notJSON) == "not JSON: unexpected end of JSON at byte 12")
        let nan = try #require(thrown { try JSONValueEncoder().encode(["a": [1, Double.nan]]) })
        #expect(codingErrorSummary(nan) == "a[1]: nan is not a JSON number")
    }
}

/// The error `body` throws, nil if it returns.
func thrown(_ body: () throws -> Any) -> (any Error)? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// Every place in `value`: object members by key, array elements by index.
func paths(in value: JSONValue) -> [[AnyHashable]] {
    var out: [[AnyHashable]] = [[]]
    switch value {
    case let .array(elements):
        for (i, e) in elements.enumerated() { out += paths(in: e).map { [i] + $0 } }
    case let .object(members):
        for m in members { out += paths(in: m.value).map { [m.key] + $0 } }
    default: break
    }
    return out
}

/// `value` with the part at `path` replaced by `new`, or removed when `new` is nil.
func replacing(_ value: JSONValue, at path: ArraySlice<AnyHashable>, with new: JSONValue?) -> JSONValue? {
    guard let step = path.first else { return new }
    switch value {
    case var .array(elements):
        let i = step as! Int
        if let part = replacing(elements[i], at: path.dropFirst(), with: new) { elements[i] = part } else { elements.remove(at: i) }
        return .array(elements)
    case var .object(members):
        let i = members.firstIndex { $0.key == step as! String }!
        if let part = replacing(members[i].value, at: path.dropFirst(), with: new) { members[i].value = part } else { members.remove(at: i) }
        return .object(members)
    default: return value
    }
}
