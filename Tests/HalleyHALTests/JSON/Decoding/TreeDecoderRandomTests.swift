import Foundation
import HalleyTestFixtures
import Testing

@testable import HalleyHAL

/// Random trees decoded as generic types (`[String: JSONValue]`, `[Int8]`, `Double?`, ...) by
/// the tree decoder and by `JSONDecoder` on the tree's text, under random settings: every
/// outcome must agree (``DecodingComparison``).
///
/// The numbers lean on the edges: integer limits of every width, integral doubles past 2^53,
/// doubles halfway between two Floats, subnormals, negative zero.
@Suite struct TreeDecoderRandomTests {
    /// Trees to run; `HALLEY_TREE_DECODER_TREES` raises it for a longer soak.
    static let treeCount =
        ProcessInfo.processInfo.environment["HALLEY_TREE_DECODER_TREES"].flatMap { Int($0) } ?? 300
    /// `HALLEY_TREE_DECODER_SEED` replays another sequence.
    static let seed =
        ProcessInfo.processInfo.environment["HALLEY_TREE_DECODER_SEED"].flatMap { UInt64($0) } ?? 0x7EE_DEC0

    typealias Setup = DecodingComparison.Setup

    static let setups: [Setup] = [
        .plain, TreeDecoderDifferentialTests.snakeCase, TreeDecoderDifferentialTests.customKeys,
        Setup("convertFromString, secondsSince1970") {
            $0.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
            $0.dateDecodingStrategy = .secondsSince1970
        },
        Setup("iso8601, deferredToData") {
            $0.dateDecodingStrategy = .iso8601
            $0.dataDecodingStrategy = .deferredToData
        },
    ]

    @Test func randomTreesDecodeAlikeAsGenericTypes() async {
        var generator = RandomTreeGenerator(seed: Self.seed)
        var tally = DecodingTally()
        for index in 0..<Self.treeCount {
            if index % 10 == 0 { await Task.yield() }  // Give the cooperative threads back now and then.
            let tree = generator.tree()
            let setup = generator.random.pick(Self.setups)
            let label = "tree \(index) with \(setup): \(tree)"
            func check<T: Decodable & Equatable>(_ type: T.Type) {
                tally.record(DecodingComparison.compare(type, tree: tree, setup), "\(T.self), \(label)")
            }
            check(JSONValue.self)
            check([String: JSONValue].self)
            check([JSONValue].self)
            check(JSONObject.self)
            check([Int].self)
            check([Int8].self)
            check([UInt8].self)
            check([Int32].self)
            check([UInt64].self)
            check([Int?].self)
            check([String].self)
            check([Bool].self)
            tally.record(
                DecodingComparison.compare([Date].self, tree: tree, setup) {
                    $0.map(\.timeIntervalSince1970.bitPattern) == $1.map(\.timeIntervalSince1970.bitPattern)
                }, "[Date], \(label)")
            check([Data].self)
            check([URL].self)
            check([[Int]].self)
            check(Wrapped<[Int64]>.self)
            func checkDictionary<T: Decodable & Equatable>(_ type: T.Type, levels: Int) {
                tally.record(
                    Self.compareNamingAnyFailingMember(type, tree: tree, setup, levels: levels), "\(T.self), \(label)")
            }
            checkDictionary([String: Int].self, levels: 1)
            checkDictionary([String: String].self, levels: 1)
            checkDictionary([String: [Int]].self, levels: 1)
            checkDictionary([String: [String: Int]].self, levels: 2)
            tally.record(
                DecodingComparison.compare([Double].self, tree: tree, setup, same: Self.sameBits),
                "[Double], \(label)")
            tally.record(
                DecodingComparison.compare([Float].self, tree: tree, setup, same: Self.sameBits), "[Float], \(label)")
            tally.record(
                DecodingComparison.compare([Double?].self, tree: tree, setup, same: Self.sameBits),
                "[Double?], \(label)")
            tally.record(
                DecodingComparison.compare([Decimal].self, tree: tree, setup) {
                    $0.map(\.description) == $1.map(\.description)
                }, "[Decimal], \(label)")
            // The top level as a scalar: each element of an array, alone.
            if case .array(let elements) = tree {
                for element in elements.prefix(4) {
                    let elementLabel = "element \(element) of \(label)"
                    tally.record(DecodingComparison.compare(Int.self, tree: element, setup), "Int, \(elementLabel)")
                    tally.record(
                        DecodingComparison.compare(UInt32.self, tree: element, setup), "UInt32, \(elementLabel)")
                    tally.record(
                        DecodingComparison.compare(Double?.self, tree: element, setup, same: Self.sameBits),
                        "Double?, \(elementLabel)")
                    tally.record(
                        DecodingComparison.compare(Float.self, tree: element, setup, same: Self.sameBits),
                        "Float, \(elementLabel)")
                    tally.record(
                        DecodingComparison.compare(String.self, tree: element, setup), "String, \(elementLabel)")
                    tally.record(
                        DecodingComparison.compare(Decimal.self, tree: element, setup), "Decimal, \(elementLabel)")
                }
            }
        }
        tally.report()
        // The trees must give both outcomes in numbers, or this compares little.
        #expect(tally.checked > Self.treeCount * 25)
        #expect(tally.failures > tally.checked / 4)
        #expect(tally.failures < tally.checked * 9 / 10)
    }

    /// Compares a `[String: _]` decode that may fail in several members at once.
    ///
    /// `Dictionary.init(from:)` visits the members in `allKeys` order. `JSONDecoder` gives them in
    /// its dictionary's order, which is not the document's and changes from run to run, so with
    /// several failing members it may report any one of them; the tree decoder reports the first
    /// in document order. When the two errors differ, this finds that member (on each of the first
    /// `levels` dictionary levels) and compares again on the tree cut down to it, where the
    /// failure is the only one and both must report it alike.
    static func compareNamingAnyFailingMember<T: Decodable & Equatable>(
        _ type: T.Type, tree: JSONValue, _ setup: Setup, levels: Int
    ) -> DecodingComparison.Finding {
        let finding = DecodingComparison.compare(type, tree: tree, setup)
        guard finding.difference != nil, finding.referenceThrew else { return finding }
        let fails = { (candidate: JSONValue) -> Bool in
            (try? JSONValueDecoder(setup.makeDecoder()).decode(type, from: candidate)) == nil
        }
        guard let pruned = firstFailingMember(of: tree, levels: levels, wrap: { $0 }, fails: fails) else {
            return finding
        }
        let retry = DecodingComparison.compare(type, tree: pruned, setup)
        return DecodingComparison.Finding(
            difference: retry.difference.map { "with only the first failing member, \(pruned): \($0)" }
                ?? (retry.referenceThrew ? nil : "JSONDecoder accepts the member the tree decoder refused"),
            referenceThrew: true)
    }

    /// The whole tree cut down to the first member (in document order) that fails on its own,
    /// and within it to its first failing member, down `levels` levels.
    private static func firstFailingMember(
        of value: JSONValue, levels: Int, wrap: (JSONValue) -> JSONValue, fails: (JSONValue) -> Bool
    ) -> JSONValue? {
        guard levels > 0, case .object(let object) = value else { return nil }
        for (name, member) in object.members {
            let alone = wrap(.object([name: member]))
            guard fails(alone) else { continue }
            return firstFailingMember(
                of: member, levels: levels - 1, wrap: { wrap(.object([name: $0])) }, fails: fails) ?? alone
        }
        return nil
    }

    static func sameBits(_ lhs: [Double], _ rhs: [Double]) -> Bool { lhs.map(\.bitPattern) == rhs.map(\.bitPattern) }
    static func sameBits(_ lhs: [Float], _ rhs: [Float]) -> Bool { lhs.map(\.bitPattern) == rhs.map(\.bitPattern) }
    static func sameBits(_ lhs: [Double?], _ rhs: [Double?]) -> Bool {
        lhs.map { $0?.bitPattern } == rhs.map { $0?.bitPattern }
    }
    static func sameBits(_ lhs: Double?, _ rhs: Double?) -> Bool { lhs?.bitPattern == rhs?.bitPattern }
    static func sameBits(_ lhs: Float, _ rhs: Float) -> Bool { lhs.bitPattern == rhs.bitPattern }
}

/// Random `JSONValue` trees whose arrays and objects are often of one kind, so typed decodes
/// succeed about as often as they fail.
struct RandomTreeGenerator {
    var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    mutating func tree() -> JSONValue {
        random.chance(60) ? .array(elements(depth: 1)) : .object(members(depth: 1))
    }

    private mutating func elements(depth: Int) -> [JSONValue] {
        let count = random.below(6)
        let kind = random.below(8)
        return (0..<count).map { _ in random.chance(85) ? value(kind: kind, depth: depth) : anyValue(depth: depth) }
    }

    private mutating func members(depth: Int) -> JSONObject {
        let count = random.below(5)
        let kind = random.below(8)
        var object = JSONObject()
        for _ in 0..<count {
            object[key()] = random.chance(85) ? value(kind: kind, depth: depth) : anyValue(depth: depth)
        }
        return object
    }

    private mutating func anyValue(depth: Int) -> JSONValue { value(kind: random.below(8), depth: depth) }

    private mutating func value(kind: Int, depth: Int) -> JSONValue {
        switch kind {
        case 0: return .int(integer())
        case 1: return .double(double())
        case 2: return .string(string())
        case 3: return random.chance(50) ? .bool(random.chance(50)) : .null
        case 4: return random.chance(70) ? .int(Int(random.below(100)) - 50) : .double(double())
        case 5 where depth < 4: return .array(elements(depth: depth + 1))
        case 6 where depth < 4: return .object(members(depth: depth + 1))
        default: return random.chance(50) ? .int(integer()) : .string(string())
        }
    }

    private mutating func key() -> String {
        random.pick(["a", "b_c", "_links", "x-y", "first_name", "7", "", "__", "é_a", "aB", "with space", "A_B_C"])
    }

    private mutating func integer() -> Int {
        switch random.below(4) {
        case 0: return random.pick([0, 1, -1, 127, 128, -128, -129, 255, 256, 32_767, 65_535, 65_536])
        case 1:
            return random.pick([
                Int(Int32.max), Int(Int32.max) + 1, Int(Int32.min), Int(UInt32.max), Int.max, Int.min, Int.max - 1,
                9_007_199_254_740_993, -9_007_199_254_740_993,
            ])
        case 2: return Int(truncatingIfNeeded: random.next())
        default: return random.below(1_000) - 500
        }
    }

    private mutating func double() -> Double {
        switch random.below(7) {
        case 0: return random.pick([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 100.0, 1e-7, 0.1, 1.5, -2.25])
        case 1:
            // Integral and past 2^53, where integers are read from the digits.
            return random.pick([
                9_007_199_254_740_992.0, 1_152_921_504_606_846_976, 1e18, 1e19, 1.8446744073709552e19,
                -9.223372036854776e18,
                9.223372036854776e18, 1e20, 123_456_789_012_345_680, 4.5035996273704955e15, 1e300,
            ])
        case 2:
            // Halfway between two Floats.
            let float = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()) & 0x7F7F_FFFF)
            return (Double(float) + Double(float.nextUp)) / 2 * (random.chance(50) ? 1 : -1)
        case 3:
            // Any finite bit pattern, subnormals included.
            let candidate = Double(bitPattern: random.next())
            return candidate.isFinite ? candidate : 3.5
        case 4:
            return random.pick([
                Double.leastNonzeroMagnitude, 1e-45, 1.401298464324817e-45, 3.4028234663852886e38, 3.5e38, 1e39,
            ])
        case 5: return Double(random.below(10_000)) / 8
        default: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: random.next()) & 0x7F7F_FFFF))
        }
    }

    private mutating func string() -> String {
        random.pick([
            "", "a", "NaN", "Infinity", "-Infinity", "nan", "AAEC/w==", "aGk=", "YQ", "!!", "2024-03-01T10:20:30Z",
            "2024-03-01", "https://example.com/a b", "https://example.com/a", "relative", "1", "1.5", "true",
            "line\nbreak", "quote \" and \\ backslash", "\u{1}", "é", "e\u{301}", "🐕",
        ])
    }
}
