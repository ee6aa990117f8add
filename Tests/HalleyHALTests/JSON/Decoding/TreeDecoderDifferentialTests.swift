import Foundation
import Testing

@testable import HalleyHAL

/// The tree decoder against `JSONDecoder`, on a corpus of models and inputs: every `Codable`
/// shape, every strategy of the decoder, and failures of every kind.
///
/// Each input is decoded by `JSONDecoder` from its text and by the tree decoder from the parsed
/// tree; the outcomes must be equal values, or errors of the same case, type, coding path and
/// description (``DecodingComparison``). Each input also says whether `JSONDecoder` must throw,
/// so a corpus of failures cannot pass by succeeding on both sides.
@Suite struct TreeDecoderDifferentialTests {
    typealias Setup = DecodingComparison.Setup

    static let snakeCase = Setup("convertFromSnakeCase") { $0.keyDecodingStrategy = .convertFromSnakeCase }
    /// Drops an `x-` prefix, and a `dN-` prefix when N is the length of the path it is given,
    /// so a wrong path shows as a missing key.
    static let customKeys = Setup("custom key strategy") {
        $0.keyDecodingStrategy = .custom { path in
            var name = Substring(path.last?.stringValue ?? "")
            if name.hasPrefix("x-") { name = name.dropFirst(2) }
            if name.hasPrefix("d\(path.count)-") { name = name.drop { $0 != "-" }.dropFirst() }
            return CorpusKey(String(name))
        }
    }

    /// Compares `text` decoded as `type` under each of `setups`; `fails` says whether
    /// `JSONDecoder` must throw (`nil`: either way, for a quirk both must share).
    private static func check<T: Decodable & Equatable>(
        _ type: T.Type, _ text: String, _ setups: [Setup] = [.plain], fails: Bool? = false,
        into tally: inout DecodingTally, line: Int = #line
    ) {
        for setup in setups {
            let finding = DecodingComparison.compare(type, text, setup)
            let label = "line \(line), \(T.self) with \(setup) from \(text)"
            if let fails {
                tally.record(finding, expectingFailure: fails, label)
            } else {
                tally.record(finding, label)
            }
        }
    }

    // MARK: Scalars and numbers

    @Test func scalarsAndTheirLimits() {
        var tally = DecodingTally()
        let valid = #"""
            {"bool": true, "string": "s\"q\u00e9\n", "int": -5, "int8": -128, "int16": 32767,
             "int32": -2147483648, "int64": 9223372036854775807, "uint": 18, "uint8": 255, "uint16": 65535,
             "uint32": 4294967295, "uint64": 9223372036854775807, "float": 1.5, "double": -2.25}
            """#
        Self.check(Scalars.self, valid, [.plain, Self.snakeCase, Self.customKeys], into: &tally)
        // Integral doubles are integers; doubles past 2^53 are read from their digits.
        for (member, number) in [
            ("int", "1.0"), ("int", "1e2"), ("int", "-0.0"), ("int8", "-128.0"), ("int64", "1.152921504606847e+18"),
            ("int64", "-9.007199254740992e+15"), ("uint64", "1e+19"), ("uint64", "1.8446744073709550e+19"),
            ("int", "9007199254740992.0"), ("int", "4.503599627370495e+15"), ("uint32", "4294967295.0"),
            ("float", "3"), ("float", "0.1"), ("float", "3.4028234663852886e+38"), ("float", "1e-45"),
            ("float", "1.401298464324817e-45"), ("float", "-0.0"), ("double", "5e-324"),
            ("double", "1.7976931348623157e+308"), ("double", "-9223372036854775808"), ("float", "16777217"),
            ("float", "9223372036854775807"),
        ] {
            Self.check(Scalars.self, valid.replacingMember(member, with: number), into: &tally)
        }
        // Numbers that do not fit, and values of the wrong kind.
        for (member, value) in [
            ("int8", "128"), ("int8", "-129"), ("uint8", "-1"), ("uint8", "256"), ("int", "1.5"), ("int", "1e+19"),
            ("int", "-9.223372036854776e+18"), ("int", "9.223372036854776e+18"), ("uint64", "1.8446744073709552e+19"),
            ("uint64", "-1"), ("uint", "-1.0"), ("int32", "2147483648"), ("int16", "1e+300"), ("float", "1e+39"),
            ("float", "-1e+39"), ("float", "1e-50"), ("int", "\"1\""), ("int", "true"), ("int", "null"),
            ("int", "[]"), ("int", "{}"), ("bool", "1"), ("bool", "null"), ("bool", "\"true\""), ("string", "1"),
            ("string", "null"), ("string", "false"), ("double", "\"1\""), ("double", "null"), ("float", "{}"),
            ("uint16", "65535.5"), ("int64", "1.5e-300"), ("int", "4.5035996273704955e+15"),
        ] {
            Self.check(Scalars.self, valid.replacingMember(member, with: value), fails: true, into: &tally)
        }
        Self.check(Scalars.self, valid.removingMember("uint32"), fails: true, into: &tally)
        Self.check(Scalars.self, "[]", fails: true, into: &tally)
        Self.check(Scalars.self, "null", fails: true, into: &tally)
        tally.report()
        #expect(tally.checked > 60)
    }

    @Test func floatsRoundedOnceFromTheirDigits() {
        var tally = DecodingTally()
        // Doubles that lie exactly halfway between two Floats: rounding the Double again can
        // land on the other neighbour than rounding the digits once.
        var halfway: [Double] = []
        for float: Float in [
            1, 0.1, 3.3, Float.leastNormalMagnitude / 64, 123_456.79, 16_777_216,
            Float.greatestFiniteMagnitude.nextDown,
        ] {
            halfway.append((Double(float) + Double(float.nextUp)) / 2)
            halfway.append(-(Double(float) + Double(float.nextDown)) / 2)
        }
        halfway.append(Double(Float.greatestFiniteMagnitude) + Double(Float.greatestFiniteMagnitude.ulp) / 2)
        for double in halfway {
            let text = #"{"double": 0, "float": \#(double), "doubles": [], "floats": [\#(double), \#(double.nextUp)]}"#
            // Whether the largest one fits depends on its shortest digits: either way, both agree.
            Self.check(Floats.self, text, fails: nil, into: &tally)
        }
        let infinities = Setup("convertFromString") {
            $0.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        }
        let escapedNames = Setup("convertFromString, names needing escapes") {
            $0.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: "+\"inf\"", negativeInfinity: "-\\inf", nan: "n\ta\u{1}n")
        }
        let special =
            #"{"double": "Infinity", "float": "-Infinity", "doubles": ["NaN", 1, "-Infinity"], "floats": ["NaN"]}"#
        Self.check(Floats.self, special, [infinities], into: &tally)
        Self.check(Floats.self, special, fails: true, into: &tally)
        Self.check(
            Floats.self, #"{"double": "+\"inf\"", "float": "-\\inf", "doubles": ["n\ta\u0001n"]}"#, [escapedNames],
            fails: true, into: &tally)
        for wrong in [#""infinity""#, #""Inf""#, #"" NaN""#, "null", "true"] {
            Self.check(
                Floats.self, #"{"double": \#(wrong), "float": 1, "doubles": []}"#, [infinities], fails: true,
                into: &tally)
        }
        tally.report()
        #expect(tally.checked > 20)
    }

    // On the Apple platforms' older versions, where the 128-bit integers do not exist, the
    // test is skipped (Swift Testing allows `@available` on a test, not on a suite).
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test func wideIntegers() {
        var tally = DecodingTally()
        Self.check(WideIntegers.self, #"{"signed": -9223372036854775808, "unsigned": 5}"#, into: &tally)
        Self.check(WideIntegers.self, #"{"signed": 1.8e+19, "unsigned": null}"#, into: &tally)
        Self.check(WideIntegers.self, #"{"signed": 1e+20}"#, fails: true, into: &tally)
        Self.check(WideIntegers.self, #"{"signed": 1, "unsigned": -1}"#, fails: true, into: &tally)
        Self.check(WideIntegers.self, #"{"signed": "1"}"#, fails: true, into: &tally)
        tally.report()
    }

    // MARK: Optionals and nil

    @Test func optionalsAbsentNullAndWrong() {
        var tally = DecodingTally()
        Self.check(OptionalScalars.self, "{}", [.plain, Self.snakeCase], into: &tally)
        let nulls = #"""
            {"bool": null, "string": null, "int": null, "int8": null, "int16": null, "int32": null,
             "int64": null, "uint": null, "uint8": null, "uint16": null, "uint32": null, "uint64": null,
             "float": null, "double": null, "nested": null, "list": null}
            """#
        Self.check(OptionalScalars.self, nulls, into: &tally)
        let values = #"""
            {"bool": false, "string": "", "int": 1, "int8": 2, "int16": 3, "int32": 4, "int64": 5, "uint": 6,
             "uint8": 7, "uint16": 8, "uint32": 9, "uint64": 10, "float": 11.5, "double": 12.25,
             "nested": {"id": 1, "name": "n"}, "list": [1, 2]}
            """#
        Self.check(OptionalScalars.self, values, [.plain, Self.customKeys], into: &tally)
        for (member, value) in [
            ("bool", "0"), ("string", "[]"), ("int", "1.25"), ("int8", "300"), ("uint", "-3"), ("float", "\"x\""),
            ("double", "{}"), ("nested", "[]"), ("nested", #"{"id": 1}"#), ("list", "[1, null]"), ("list", "{}"),
            ("uint64", "1e+20"), ("int16", "false"),
        ] {
            Self.check(OptionalScalars.self, values.replacingMember(member, with: value), fails: true, into: &tally)
        }
        Self.check(Wrapped<Int?>.self, #"{"value": null}"#, into: &tally)
        Self.check(Wrapped<[Int?]>.self, #"{"value": [1, null, 3]}"#, into: &tally)
        Self.check(Wrapped<Int?>.self, "{}", fails: true, into: &tally)
        Self.check(Wrapped<Leaf?>.self, #"{"value": {"id": 1}}"#, fails: true, into: &tally)
        Self.check(Wrapped<[String?]>.self, #"{"value": [1]}"#, fails: true, into: &tally)
        Self.check(Int?.self, "null", into: &tally)
        Self.check(Int?.self, "7", into: &tally)
        Self.check([Int?].self, "[null, 2]", into: &tally)
        tally.report()
    }

    // MARK: Collections and nesting

    @Test func arraysDictionariesSetsAndDepth() {
        var tally = DecodingTally()
        let tree = #"""
            {"branches": [
               {"title": "a", "leaves": [{"id": 1, "name": "x"}, {"id": 2, "name": "y"}],
                "byName": {"x": {"id": 1, "name": "x"}, "7": {"id": 7, "name": "seven"}},
                "grid": [[1, 2], [], [3]], "maybe": [null, {"id": 3, "name": "z"}], "tags": ["p", "q"]},
               {"title": "b", "leaves": [], "byName": {}, "grid": [], "maybe": [], "tags": []}],
             "index": {"first": [{"id": 1, "name": "x"}], "": []}}
            """#
        Self.check(Tree.self, tree, [.plain, Self.snakeCase, Self.customKeys], into: &tally)
        // One failure at a time, deep inside arrays and dictionaries.
        let failures: [(String, String)] = [
            (#"{"id": 2, "name": "y"}"#, #"{"id": 2}"#),
            (#"{"id": 2, "name": "y"}"#, #"{"id": "2", "name": "y"}"#),
            (#"{"id": 2, "name": "y"}"#, "null"),
            (#"{"id": 7, "name": "seven"}"#, #"{"id": 7}"#),
            (#"{"id": 7, "name": "seven"}"#, #"{"id": 7.5, "name": "seven"}"#),
            (#"[1, 2]"#, #"[1, "2"]"#),
            (#"[1, 2]"#, #"[1, 99999999999999999999]"#),
            (#""tags": ["p", "q"]"#, #""tags": ["p", 1]"#),
            (#""first": [{"id": 1, "name": "x"}]"#, #""first": [{"id": 1, "name": null}]"#),
            (#""first": [{"id": 1, "name": "x"}]"#, #""first": {"id": 1}"#),
            (#""maybe": [null, "#, #""maybe": [1, "#),
            (#""grid": [[1, 2], [], [3]]"#, #""grid": [[1, 2], null, [3]]"#),
            (#""byName": {}"#, #""byName": []"#),
            (#""byName": {}"#, #""byName": null"#),
        ]
        for (original, broken) in failures {
            Self.check(
                Tree.self, tree.replacingOccurrences(of: original, with: broken),
                [.plain, Self.snakeCase, Self.customKeys], fails: true, into: &tally)
        }
        Self.check([String: [Int]].self, #"{"a": [1], "b": [], "c_d": [2]}"#, [.plain, Self.snakeCase], into: &tally)
        Self.check([String: Int].self, #"{"a": 1, "b": "2"}"#, [.plain, Self.snakeCase], fails: true, into: &tally)
        Self.check([String: Int].self, "[]", [.plain, Self.snakeCase], fails: true, into: &tally)
        Self.check([String: Int].self, "null", [.plain, Self.snakeCase], fails: true, into: &tally)
        Self.check([Int: Int].self, #"{"1": 1, "-2": 2}"#, into: &tally)
        Self.check(
            IntKeyed.self, #"{"byNumber": {"1": "one", "20": "twenty"}}"#, [.plain, Self.snakeCase], into: &tally)
        Self.check(IntKeyed.self, #"{"byNumber": {"one": "1"}}"#, [.plain, Self.snakeCase], fails: true, into: &tally)
        Self.check([[[Int]]].self, "[[[1], []], [], [[2, 3]]]", into: &tally)
        Self.check([[[Int]]].self, "[[[1], []], [], [[2, true]]]", fails: true, into: &tally)
        Self.check(Set<Int>.self, "[3, 1, 2]", into: &tally)
        Self.check([Leaf].self, "{}", fails: true, into: &tally)
        Self.check([Leaf].self, "null", fails: true, into: &tally)
        tally.report()
    }

    @Test func enumsRawAndWithAssociatedValues() {
        var tally = DecodingTally()
        let valid = #"""
            {"colour": "red", "rank": 2, "byColour": {"green": 1},
             "shapes": [{"circle": {"radius": 1.5}}, {"square": {"_0": 2}}, {"labelled": {"_0": "t", "sides": 3}},
                        {"empty": {}}]}
            """#
        Self.check(Enums.self, valid, [.plain, Self.snakeCase], into: &tally)
        for (original, broken) in [
            (#""red""#, #""blue""#), (#""rank": 2"#, #""rank": 3"#), (#""rank": 2"#, #""rank": "2""#),
            (#"{"empty": {}}"#, #"{"empty": {}, "circle": {"radius": 1}}"#), (#"{"empty": {}}"#, #"{"hexagon": {}}"#),
            (#"{"radius": 1.5}"#, "{}"), (#""green": 1"#, #""purple": 1"#),
        ] {
            Self.check(
                Enums.self, valid.replacingOccurrences(of: original, with: broken), [.plain, Self.snakeCase],
                fails: true, into: &tally)
        }
        tally.report()
    }

    @Test func handWrittenContainersAndSuperDecoders() {
        var tally = DecodingTally()
        let nesting = #"""
            {"outer": {"inner": 4}, "pairs": [["a", 1], ["b", 2]], "matrix": [[1], [2, 3]],
             "records": [{"name": "r1"}, {"name": "r2"}], "flag": null, "optional": null}
            """#
        Self.check(Nesting.self, nesting, [.plain, Self.snakeCase], into: &tally)
        Self.check(Nesting.self, nesting.replacingMember("flag", with: "0"), into: &tally)
        for (original, broken) in [
            (#"{"inner": 4}"#, "[4]"), (#"{"inner": 4}"#, "null"), (#"{"inner": 4}"#, "{}"), (#"["b", 2]"#, #"["b"]"#),
            (#"["b", 2]"#, #"{"b": 2}"#), (#"[2, 3]"#, "7"), (#"{"name": "r2"}"#, "[]"), (#"{"name": "r2"}"#, "null"),
            (#""flag": null, "#, ""), (#", "optional": null"#, ""), (#""optional": null"#, #""optional": "x""#),
            (#""pairs": [["a", 1], ["b", 2]]"#, #""pairs": null"#),
        ] {
            Self.check(
                Nesting.self, nesting.replacingOccurrences(of: original, with: broken), fails: true, into: &tally)
        }
        let dog =
            #"{"super": {"name": "Rex"}, "breed": "collie", "parent": {"name": "Lassie"}, "litter": [{"name": "Pup"}]}"#
        Self.check(Dog.self, dog, [.plain, Self.snakeCase], into: &tally)
        // `superDecoder()` reads the member named "super"; without it, it reads `null`.
        Self.check(
            Dog.self, dog.replacingOccurrences(of: #""super": {"name": "Rex"}"#, with: #""name": "Rex""#), fails: true,
            into: &tally)
        Self.check(Dog.self, dog.replacingOccurrences(of: #"{"name": "Rex"}"#, with: "{}"), fails: true, into: &tally)
        Self.check(Dog.self, dog.replacingOccurrences(of: #"[{"name": "Pup"}]"#, with: "[]"), fails: true, into: &tally)
        Self.check(
            Dog.self, dog.replacingOccurrences(of: #"{"name": "Lassie"}"#, with: "[]"), fails: true, into: &tally)
        Self.check(AbsentSuper.self, "{}", into: &tally)
        for mode in ["element", "nestedKeyed", "nestedUnkeyed", "superDecoder", "keyedOnArray", "unkeyedOnObject"] {
            Self.check(
                Overreach.self, #"{"mode": "\#(mode)", "list": [1, 2], "object": {}, "null": null}"#, fails: true,
                into: &tally)
        }
        Self.check(
            Overreach.self, #"{"mode": "nestedOnNull", "list": [], "object": {}, "null": null}"#, fails: true,
            into: &tally)
        tally.report()
    }

    @Test func whatADecoderTellsAboutItself() {
        var tally = DecodingTally()
        let text = #"{"items": [[1, null, 3], [], [null]], "user": 1, "extra_key": true}"#
        let withUserInfo = Setup("userInfo") { $0.userInfo[Introspective.userInfoKey] = "from the caller" }
        Self.check(Introspective.self, text, [.plain, withUserInfo, Self.snakeCase, Self.customKeys], into: &tally)
        Self.check(Wrapped<Introspective>.self, #"{"value": \#(text)}"#, [.plain, Self.snakeCase], into: &tally)
        Self.check(
            [String: Introspective].self, #"{"7": \#(text), "k": \#(text)}"#, [.plain, Self.snakeCase], into: &tally)
        Self.check(
            Introspective.self, text.replacingOccurrences(of: "[], [null]", with: #"[], ["x"]"#), fails: true,
            into: &tally)
        tally.report()
    }

    @Test func errorsThrownByModelsTravelUnchanged() {
        var tally = DecodingTally()
        Self.check([Validated].self, #"[{"value": 10}, {"value": 11}]"#, into: &tally)
        Self.check([Validated].self, #"[{"value": 10}, {"value": -1}]"#, fails: true, into: &tally)
        Self.check([Validated].self, #"[{"value": 10}, {"value": 3}]"#, fails: true, into: &tally)
        Self.check([String: Validated].self, #"{"a": {"value": -1}}"#, fails: true, into: &tally)
        tally.report()
    }

    // MARK: Key strategies

    @Test func keyStrategies() {
        var tally = DecodingTally()
        let snake = #"""
            {"first_name": "Ada", "_links": "l", "trailing_": "t", "__both__": "b", "a_b": "ab", "ALL_CAPS": "c",
             "with_1_number": "n", "already_camelCase": "cc", "leading_CAPS": "lc",
             "mapping": {"keep_this": 1, "and_this_too": 2}}
            """#
        Self.check(SnakeCased.self, snake, [Self.snakeCase], into: &tally)
        Self.check(SnakeCased.self, snake, fails: true, into: &tally)
        // Two members that convert to the same name: the first one wins.
        Self.check(
            SnakeCased.self, #"{"first_name": "one", "firstName": "two", "a_b": "x", "aB": 1}"#, [Self.snakeCase],
            into: &tally)
        Self.check(
            SnakeCased.self, #"{"firstName": "one", "first_name": "two", "aB": 1, "a_b": "x"}"#, [Self.snakeCase],
            fails: true, into: &tally)
        // Names at the edges of the rules.
        for name in [
            "_", "__", "a", "_a", "a_", "a__b", "A_B", "a_b_c_d", "ümlaut_straße", "é_a", "a_1_b", "x_y_", "_x_y",
            "with space_x", "1_2", "", "e\u{301}_f", "ß_ﬁ", "İ_i",
        ] {
            Self.check(
                [String: Int].self, #"{"\#(name)": 1}"#, [Self.snakeCase, Self.customKeys], into: &tally)
            Self.check(
                Wrapped<[String: Int]>.self, #"{"value": {"\#(name)": 1}}"#, [Self.snakeCase], into: &tally)
            Self.check(Introspective.self, #"{"items": [], "\#(name)": 1}"#, [Self.snakeCase], into: &tally)
            Self.check(JSONValue.self, #"{"\#(name)": {"\#(name)": [1.0]}}"#, [Self.snakeCase], into: &tally)
        }
        // The custom strategy sees each member's full path; dictionaries keep their keys.
        Self.check(
            SnakeCased.self, #"{"x-firstName": "Ada", "d1-mapping": {"x-Keep": 1}, "nested": {"x-First": 1}}"#,
            [Self.customKeys], into: &tally)
        Self.check(
            Wrapped<[String: [String: Int]]>.self, #"{"x-value": {"x-A": {"x-B": 1}}}"#, [Self.customKeys],
            into: &tally)
        Self.check(Wrapped<Leaf>.self, #"{"d1-value": {"d2-id": 1, "x-name": "n"}}"#, [Self.customKeys], into: &tally)
        Self.check(
            Wrapped<Leaf>.self, #"{"x-value": {"d1-id": 1, "name": "n"}}"#, [Self.customKeys], fails: true,
            into: &tally)
        Self.check(Wrapped<[Leaf]>.self, #"{"value": [{"d3-id": 1, "name": "n"}]}"#, [Self.customKeys], into: &tally)
        tally.report()
    }

    // MARK: Dates, data, URLs, decimals

    @Test func dateStrategies() {
        var tally = DecodingTally()
        let setups: [(Setup, String, [String])] = [
            (Setup("deferredToDate"), "1.5", ["\"1\"", "null", "[]"]),
            (Setup("secondsSince1970") { $0.dateDecodingStrategy = .secondsSince1970 }, "1700000000", ["\"x\"", "{}"]),
            (
                Setup("millisecondsSince1970") { $0.dateDecodingStrategy = .millisecondsSince1970 }, "1700000000123.5",
                ["true"]
            ),
            (
                Setup("iso8601") { $0.dateDecodingStrategy = .iso8601 }, #""2024-03-01T10:20:30Z""#,
                [#""2024-03-01""#, #""yesterday""#, "12", "null"]
            ),
            (
                Setup("formatted") {
                    let formatter = DateFormatter()
                    formatter.dateFormat = "yyyy-MM-dd"
                    formatter.timeZone = TimeZone(identifier: "UTC")
                    formatter.locale = Locale(identifier: "en_US_POSIX")
                    $0.dateDecodingStrategy = .formatted(formatter)
                }, #""2024-03-01""#,
                [#""01/03/2024""#, "1", "null"]
            ),
            (
                Setup("custom") {
                    $0.dateDecodingStrategy = .custom { decoder in
                        let container = try decoder.singleValueContainer()
                        let text = try container.decode(String.self)
                        guard text.hasPrefix("@"), let seconds = Double(text.dropFirst()) else {
                            throw DecodingError.dataCorruptedError(
                                in: container, debugDescription: "not an @-timestamp: \(decoder.codingPath.count)")
                        }
                        return Date(timeIntervalSince1970: seconds)
                    }
                }, #""@12.5""#, [#""12""#, "12", "null"]
            ),
        ]
        for (setup, good, bad) in setups {
            let text = #"{"at": \#(good), "maybe": \#(good), "list": [\#(good)], "byName": {"k": \#(good)}}"#
            Self.check(Dated.self, text, [setup], into: &tally)
            Self.check(Wrapped<Date>.self, #"{"value": \#(good)}"#, [setup], into: &tally)
            Self.check(Date.self, good, [setup], into: &tally)
            Self.check([String: Date].self, #"{"a_b": \#(good)}"#, [setup], into: &tally)
            Self.check(
                Dated.self, #"{"at": \#(good), "maybe": null, "list": [], "byName": {}}"#, [setup], into: &tally)
            for wrong in bad {
                for broken in [
                    #"{"at": \#(wrong), "list": [], "byName": {}}"#,
                    #"{"at": \#(good), "maybe": \#(wrong), "list": [], "byName": {}}"#,
                    #"{"at": \#(good), "list": [\#(good), \#(wrong)], "byName": {}}"#,
                    #"{"at": \#(good), "list": [], "byName": {"k": \#(wrong)}}"#,
                ] where !(wrong == "null" && broken.contains(#""maybe": null"#)) {
                    Self.check(Dated.self, broken, [setup], fails: true, into: &tally)
                }
                Self.check(Date.self, wrong, [setup], fails: true, into: &tally)
                Self.check(Wrapped<[Date]>.self, #"{"value": [\#(wrong)]}"#, [setup], fails: true, into: &tally)
            }
        }
        tally.report()
        #expect(tally.failures > 40)
    }

    @Test func dataStrategies() {
        var tally = DecodingTally()
        let hex = Setup("custom data") {
            $0.dataDecodingStrategy = .custom { decoder in
                let container = try decoder.singleValueContainer()
                let text = try container.decode(String.self)
                var bytes: [UInt8] = []
                var index = text.startIndex
                while index < text.endIndex {
                    let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) ?? text.endIndex
                    guard let byte = UInt8(text[index..<next], radix: 16) else {
                        throw DecodingError.dataCorruptedError(in: container, debugDescription: "not hex")
                    }
                    bytes.append(byte)
                    index = next
                }
                return Data(bytes)
            }
        }
        let deferred = Setup("deferredToData") { $0.dataDecodingStrategy = .deferredToData }
        Self.check(Blob.self, #"{"data": "AAEC/w==", "maybe": "", "list": ["aGk=", "YQ"]}"#, fails: true, into: &tally)
        Self.check(Blob.self, #"{"data": "AAEC/w==", "maybe": "", "list": ["aGk=", "YWJj"]}"#, into: &tally)
        // Foundation's Base64 reader takes padding in the middle; so must we.
        Self.check(Blob.self, #"{"data": "AA=A", "list": []}"#, into: &tally)
        for bad in [#""!!""#, #""AAE""#, #""YQ""#, #""A A=""#, #""AAEC\n""#, "1", "null", "[1]", #""\u00e9""#] {
            Self.check(Blob.self, #"{"data": \#(bad), "list": []}"#, fails: true, into: &tally)
            Self.check(Blob.self, #"{"data": "", "list": [\#(bad)]}"#, fails: true, into: &tally)
            Self.check(Data.self, bad, fails: true, into: &tally)
        }
        Self.check(Blob.self, #"{"data": [0, 1, 255], "maybe": null, "list": [[]]}"#, [deferred], into: &tally)
        Self.check(Blob.self, #"{"data": [0, 256], "list": []}"#, [deferred], fails: true, into: &tally)
        Self.check(Blob.self, #"{"data": "AA==", "list": []}"#, [deferred], fails: true, into: &tally)
        Self.check(Blob.self, #"{"data": "00ff10", "list": ["", "ab"]}"#, [hex], into: &tally)
        Self.check(Blob.self, #"{"data": "0g", "list": []}"#, [hex], fails: true, into: &tally)
        Self.check(Blob.self, #"{"data": 1, "list": []}"#, [hex], fails: true, into: &tally)
        tally.report()
    }

    @Test func urlsAndDecimals() {
        var tally = DecodingTally()
        Self.check(
            Locations.self, #"{"url": "https://example.com/a?b=c#d", "maybe": "relative/path"}"#, into: &tally)
        Self.check(Locations.self, #"{"url": "mailto:ada@example.com", "maybe": null}"#, into: &tally)
        // Foundation's URL takes a NUL (percent-encoded); so must we.
        Self.check(Locations.self, #"{"url": "\u0000"}"#, into: &tally)
        for bad in [#""""#, #""http://exa mple.com""#, "1", "null", "{}", "[]"] {
            Self.check(Locations.self, #"{"url": \#(bad)}"#, fails: true, into: &tally)
            Self.check(URL.self, bad, fails: true, into: &tally)
        }
        let decimals = [
            "0", "1", "-1", "0.1", "1.5", "-0.0", "1e+20", "1e-07", "123456789.12345679", "9223372036854775807",
            "-9223372036854775808", "3.141592653589793", "1.7976931348623157e+308", "5e-324", "1e+127", "1e-128",
        ]
        for number in decimals {
            let fits = !["1.7976931348623157e+308", "5e-324"].contains(number)
            Self.check(
                Money.self, #"{"amount": \#(number), "list": [\#(number), 2], "maybe": \#(number)}"#, fails: !fits,
                into: &tally)
        }
        for bad in [#""1.5""#, "null", "true", "[]"] {
            Self.check(Money.self, #"{"amount": \#(bad), "list": []}"#, fails: true, into: &tally)
            Self.check(Money.self, #"{"amount": 1, "list": [\#(bad)]}"#, fails: true, into: &tally)
            Self.check(Decimal.self, bad, fails: true, into: &tally)
        }
        tally.report()
    }

    // MARK: Open shapes and Halley's types

    @Test func jsonValuesLinksAndTopLevelValues() {
        var tally = DecodingTally()
        let open = #"""
            {"any": {"a": [1, 1.5, 2.0, -0.0, 1e+300, 1.152921504606847e+18, "s", true, null, {}],
                     "b": {"c": {"d": [[], [{}]]}}},
             "object": {"x": 1}, "list": [null, 3.0, "3"]}
            """#
        Self.check(OpenShapes.self, open, [.plain, Self.snakeCase, Self.customKeys], into: &tally)
        Self.check(OpenShapes.self, open.replacingOccurrences(of: #"{"x": 1}"#, with: "[1]"), fails: true, into: &tally)
        Self.check(OpenShapes.self, open.replacingOccurrences(of: #"{"x": 1}"#, with: "null"), into: &tally)
        Self.check(JSONValue.self, open, [.plain, Self.snakeCase], into: &tally)
        Self.check(JSONObject.self, open, into: &tally)
        Self.check(JSONObject.self, "[]", fails: true, into: &tally)
        let linked = #"""
            {"_links": {"self": {"href": "/a", "title": "A", "x-extra": [1, 2.0]},
                        "item": [{"href": "/b", "templated": false}, {"href": "/c{?q}", "templated": true}],
                        "curies": [{"name": "ex", "href": "/rels/{rel}", "templated": true}],
                        "broken": {"title": "no href"}, "odd": 5, "ex:thing": {"href": "/t", "name": "n"}},
             "title": "t"}
            """#
        Self.check(Linked.self, linked, [.plain, Self.snakeCase], into: &tally)
        Self.check(Linked.self, #"{"_links": [], "title": "t"}"#, fails: true, into: &tally)
        Self.check(Linked.self, #"{"_links": {"self": {"href": 1}}, "title": "t"}"#, into: &tally)
        // Links read straight from the tree must be the links the containers build: null HAL
        // properties dropped, other members kept, a wrong type anywhere left to the parser.
        let nulls = #"""
            {"_links": {"a": {"href": "/a", "templated": null, "type": null, "name": "n", "x": null},
                        "b": [{"href": "/b", "title": null}, {"href": "/c", "hreflang": "en", "z": {"k": 1.0}}],
                        "c": [], "d": [{"href": "/d"}, {"href": 2}, 7], "e": null, "f": {"href": "/f", "type": 3},
                        "g": {"href": "/g", "templated": "yes"}, "h": [{"href": "/h", "name": false}]},
             "title": "t", "one": {"deprecation": null, "href": "/one", "profile": "p", "y": 2.0}}
            """#
        Self.check(Linked.self, nulls, into: &tally)
        Self.check(
            Linked.self, #"{"_links": {}, "title": "t", "one": {"href": "/x", "type": 1}}"#, fails: true, into: &tally)
        Self.check(
            Linked.self, #"{"_links": {}, "title": "t", "one": {"title": "no href"}}"#, fails: true, into: &tally)
        Self.check(
            Linked.self, #"{"_links": {}, "title": "t", "one": {"href": "/x", "templated": 1}}"#, fails: true,
            into: &tally)
        Self.check(Int.self, "12", into: &tally)
        Self.check(String.self, #""s""#, into: &tally)
        Self.check(Bool.self, "null", fails: true, into: &tally)
        Self.check([Int].self, "[1, 2.0, 3]", into: &tally)
        Self.check([Int8].self, "[1, 300]", fails: true, into: &tally)
        Self.check([UInt8].self, "[1, -1]", fails: true, into: &tally)
        Self.check([Double].self, "[1, 2.5, -0.0]", into: &tally)
        Self.check(Double.self, "\"NaN\"", fails: true, into: &tally)
        tally.report()
    }

    // MARK: Every setting at once

    @Test func json5AndTopLevelDictionarySettingsChangeNothingForATree() {
        var tally = DecodingTally()
        let json5 = Setup("allowsJSON5") { $0.allowsJSON5 = true }
        Self.check(
            Scalars.self,
            #"""
            {"bool": true, "string": "s", "int": -5, "int8": -128, "int16": 1.0, "int32": 7, "int64": 1e+18,
             "uint": 18, "uint8": 255, "uint16": 2, "uint32": 3, "uint64": 4, "float": 0.1, "double": 1e-07}
            """#, [json5], into: &tally)
        Self.check([Int8].self, "[1, 300]", [json5], fails: true, into: &tally)
        Self.check(Tree.self, #"{"branches": [], "index": {"a": [{"id": 1}]}}"#, [json5], fails: true, into: &tally)
        tally.report()
    }
}

/// A key made by the custom key strategy.
struct CorpusKey: CodingKey {
    let stringValue: String
    let intValue: Int? = nil

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension String {
    /// The corpus text with the member `name` given another value (written as JSON text).
    func replacingMember(_ name: String, with value: String) -> String {
        guard let range = range(of: "\"\(name)\": ") else { return self }
        var end = range.upperBound
        var depth = 0
        var inString = false
        while end < endIndex {
            let character = self[end]
            if inString {
                if character == "\\" {
                    end = index(after: end)
                } else if character == "\"" {
                    inString = false
                }
            } else if character == "\"" {
                inString = true
            } else if character == "[" || character == "{" {
                depth += 1
            } else if character == "]" || character == "}" {
                if depth == 0 { break }
                depth -= 1
            } else if character == ",", depth == 0 {
                break
            }
            end = index(after: end)
        }
        return replacingCharacters(in: range.upperBound..<end, with: value)
    }

    /// The corpus text without the member `name`.
    func removingMember(_ name: String) -> String {
        let marker = "\u{1}"
        let replaced = replacingMember(name, with: marker)
        return replaced.replacingOccurrences(of: "\"\(name)\": \(marker),", with: "")
            .replacingOccurrences(of: ", \"\(name)\": \(marker)", with: "")
    }
}
