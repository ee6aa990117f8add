import Foundation
import Testing

@testable import HalleyHAL

@Suite struct JSONValueTests {
    /// HAL's own member names are read without building a string; names that only start or
    /// end like them, or spell them with escapes, still come out as written.
    @Test func halNamesAndTheirLookAlikesParseAsWritten() throws {
        let text = #"{"hrefs":1,"href":2,"hr\u0065f":3,"_linksx":4,"_links":{},"typ":5,"type":6,"tit":7,"selfie":8}"#
        let object = try #require(try JSONValue(parsing: text).objectValue)
        #expect(object.keys == ["hrefs", "href", "_linksx", "_links", "typ", "type", "tit", "selfie"])
        #expect(object["href"] == 3, "the escaped spelling is the same name: the last value wins")
        #expect(object["hrefs"] == 1 && object["_linksx"] == 4 && object["selfie"] == 8)
    }

    @Test func parsesEveryKindAndKeepsIntegersApartFromDoubles() throws {
        let value = try JSONValue(
            parsing:
                #"{"i": 3, "d": 3.0, "e": 1e3, "neg": -12, "s": "x", "t": true, "f": false, "n": null, "a": [1, "two"]}"#
        )
        #expect(value["i"] == .int(3))
        #expect(value["d"] == .double(3.0))
        #expect(value["e"] == .double(1000))
        #expect(value["neg"] == .int(-12))
        #expect(value["s"] == .string("x"))
        #expect(value["t"] == .bool(true))
        #expect(value["f"] == .bool(false))
        #expect(value["n"] == .null)
        #expect(value["a"] == [1, "two"])
    }

    @Test func integersTooLargeForIntBecomeDoubles() throws {
        let value = try JSONValue(parsing: "[12345678901234567890, -9223372036854775808]")
        #expect(value[0] == .double(1.2345678901234567e19))
        #expect(value[1] == .int(Int.min))
    }

    @Test func keepsKeyOrderForOutput() throws {
        let text = #"{"zeta":1,"alpha":2,"_links":{"self":{"href":"/x"}},"mid":[true,null]}"#
        let value = try JSONValue(parsing: text)
        #expect(value.objectValue?.keys == ["zeta", "alpha", "_links", "mid"])
        #expect(String(decoding: value.serialized(), as: UTF8.self) == text)
    }

    @Test func sortedAndPrettyOutput() throws {
        let value: JSONValue = ["b": 1, "a": ["c": [1, 2], "b": [:]]]
        let pretty = String(decoding: value.serialized(options: [.prettyPrinted, .sortedKeys]), as: UTF8.self)
        #expect(
            pretty == """
                {
                  "a": {
                    "b": {},
                    "c": [
                      1,
                      2
                    ]
                  },
                  "b": 1
                }
                """)
    }

    @Test func objectEqualityIgnoresOrderButOutputDoesNot() {
        let first: JSONValue = ["a": 1, "b": 2]
        let second: JSONValue = ["b": 2, "a": 1]
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(first.description != second.description)
    }

    @Test func stringEscapesRoundTrip() throws {
        let original = "quote \" backslash \\ newline \n tab \t control \u{01} emoji 😀 é /"
        let value = JSONValue.string(original)
        let reparsed = try JSONValue(parsing: value.serialized())
        #expect(reparsed == value)
        let escaped = try JSONValue(parsing: #""\u00e9\ud83d\ude00\/\b\f""#)
        #expect(escaped == .string("é😀/\u{08}\u{0C}"))
    }

    @Test func duplicateKeysKeepTheLastValueAtTheFirstPosition() throws {
        let value = try JSONValue(parsing: #"{"a": 1, "b": 2, "a": 3}"#)
        #expect(value.objectValue?.keys == ["a", "b"])
        #expect(value["a"] == .int(3))
    }

    /// The parser skips the duplicate check for a name it can tell is new from its bytes; a
    /// name written with an escape must still find, and be found by, the same name without.
    @Test func duplicateKeysAreFoundWhateverTheirSpelling() throws {
        let escapedSecond = try JSONValue(parsing: #"{"a": 1, "bc": 2, "\u0061": 3, "b\u0063": 4}"#)
        #expect(escapedSecond.objectValue?.keys == ["a", "bc"])
        #expect(escapedSecond["a"] == .int(3))
        #expect(escapedSecond["bc"] == .int(4))
        let escapedFirst = try JSONValue(parsing: #"{"\u0061": 1, "x": 0, "a": 2, "self": 5, "self": 6}"#)
        #expect(escapedFirst.objectValue?.keys == ["a", "x", "self"])
        #expect(escapedFirst["a"] == .int(2))
        #expect(escapedFirst["self"] == .int(6))
        // Names that share a length, a first and a last byte are told apart by the full check.
        let alike = try JSONValue(parsing: #"{"abc": 1, "axc": 2, "abc": 3, "": 4, "": 5}"#)
        #expect(alike.objectValue?.keys == ["abc", "axc", ""])
        #expect(alike["abc"] == .int(3))
        #expect(alike[""] == .int(5))
    }

    @Test func largeObjectsStayConsistentThroughTheIndex() throws {
        var object = JSONObject()
        for index in 0..<100 { object["k\(index)"] = .int(index) }
        object["k50"] = nil
        object["k7"] = .string("seven")
        #expect(object.count == 99)
        #expect(object["k50"] == nil)
        #expect(object["k99"] == .int(99))
        #expect(object["k7"] == .string("seven"))
        #expect(object.keys.firstIndex(of: "k51") == 50)
    }

    @Test func codableRoundTripThroughFoundation() throws {
        let value: JSONValue = ["name": "Ada", "tags": ["a", "b"], "age": 36, "score": 1.5, "ok": true, "none": nil]
        let data = try JSONEncoder().encode(value)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(decoded == value)
    }

    @Test func convertsToAndFromFoundationObjects() throws {
        let value: JSONValue = ["n": 1, "d": 2.5, "b": true, "s": "x", "a": [nil, false], "o": ["k": 0]]
        let foundation = try #require(value.foundationObject as? [String: Any])
        #expect(foundation["n"] as? Int == 1)
        #expect(foundation["s"] as? String == "x")
        let back = try #require(JSONValue(foundationObject: foundation))
        #expect(back == value)

        let serialized = try JSONSerialization.jsonObject(with: value.serialized())
        #expect(JSONValue(foundationObject: serialized) == value)
        #expect(JSONValue(foundationObject: ["date": Date()]) == nil)
    }

    @Test(arguments: [
        ("", JSONParsingError.Code.unexpectedEnd, 0, "$"),
        (#"{"a": [1, }"#, .unexpectedCharacter, 10, "$.a[1]"),
        (#"{"a": tru}"#, .unexpectedCharacter, 9, "$.a"),
        (#"{"a" 1}"#, .unexpectedCharacter, 5, "$"),
        (#"{"a": 01}"#, .invalidNumber, 6, "$.a"),
        (#"[1.]"#, .invalidNumber, 1, "$[0]"),
        (#"["a\qb"]"#, .invalidString, 3, "$[0]"),
        ("[\"tab\there\"]", .invalidString, 5, "$[0]"),
        (#"{"x": "\ud800"}"#, .invalidString, 7, "$.x"),
        (#"{"a": 1} x"#, .trailingCharacters, 9, "$"),
        (#"{"outer": {"in ner": [true, nul]}}"#, .unexpectedCharacter, 31, #"$.outer["in ner"][1]"#),
    ])
    func reportsSyntaxErrorsWithOffsetAndPath(text: String, code: JSONParsingError.Code, offset: Int, path: String) {
        #expect {
            try JSONValue(parsing: text)
        } throws: { error in
            guard let error = error as? JSONParsingError else { return false }
            return error.code == code && error.byteOffset == offset && error.path == path
        }
    }

    @Test func invalidUTF8IsATypedError() {
        var bytes = Array(#"{"name": ""#.utf8)
        bytes += [0xC3, 0x28]  // a lead byte followed by a non-continuation byte
        bytes += Array(#""}"#.utf8)
        #expect(throws: JSONParsingError.self) { try JSONValue(parsing: Data(bytes)) }
        do throws(JSONParsingError) {
            _ = try JSONValue(parsing: Data(bytes))
        } catch {
            #expect(error.code == .invalidUTF8)
            #expect(error.path == "$.name")
        }
    }

    @Test func hundredThousandDeepNestingStopsAtTheLimitWithoutOverflowingTheStack() async throws {
        let depth = 100_000
        let body = Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
        // Run on the cooperative pool, whose threads have smaller stacks than the main thread.
        let error = await Task.detached { () -> JSONParsingError? in
            do throws(JSONParsingError) {
                _ = try JSONValue(parsing: body)
                return nil
            } catch {
                return error
            }
        }.value
        let failure = try #require(error)
        #expect(failure.code == .nestingTooDeep)
        #expect(failure.byteOffset == JSONParsingOptions.defaultMaximumDepth)
    }

    @Test func nestingUpToTheLimitParses() throws {
        let depth = JSONParsingOptions.defaultMaximumDepth
        let body = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        // Parsed, and whole: `depth` arrays, each holding the next, the innermost empty.
        var value = try JSONValue(parsing: body)
        var levels = 0
        while case .array(let elements) = value {
            levels += 1
            guard let only = elements.first else { break }
            #expect(elements.count == 1, "level \(levels) holds \(elements.count) elements")
            value = only
        }
        #expect(levels == depth)
        #expect(value == [])
        let custom = JSONParsingOptions(maximumDepth: 3)
        #expect(throws: JSONParsingError.self) { try JSONValue(parsing: "[[[[]]]]", options: custom) }
    }

    @Test func skipsAUTF8ByteOrderMarkAsFoundationDoes() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        #expect(try JSONValue(parsing: Data(bom + Array(#" {"a":1,}"#.utf8))) == ["a": 1])
        #expect(try JSONValue(parsing: Data(bom + Array("7".utf8))) == 7)
        // Offsets still count the body's bytes, mark included.
        do throws(JSONParsingError) {
            _ = try JSONValue(parsing: Data(bom + Array("[1,,]".utf8)))
            Issue.record("a doubled comma must not parse")
        } catch {
            #expect(error.code == .unexpectedCharacter)
            #expect(error.byteOffset == 6)
        }
        // Only at the very start, and only once.
        let spaceFirst = Data(Array(" ".utf8) + bom + Array("[]".utf8))
        #expect(throws: JSONParsingError.self) { try JSONValue(parsing: spaceFirst) }
        #expect(throws: JSONParsingError.self) { try JSONValue(parsing: Data(bom + bom + Array("[]".utf8))) }
        #expect(throws: JSONParsingError.self) { try JSONValue(parsing: Data(bom)) }
    }

    @Test(arguments: ["utf-16le", "utf-16be", "utf-32le", "utf-32be", "utf-16le+bom", "utf-16be+bom", "utf-32le+bom"])
    func refusesUTF16AndUTF32ByNameThoughFoundationReadsThem(encoding: String) throws {
        let text = #"{"a":1}"#
        let bytes: [UInt8]
        switch encoding {
        case "utf-16le": bytes = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        case "utf-16be": bytes = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case "utf-32le": bytes = text.unicodeScalars.flatMap { [UInt8($0.value & 0xFF), 0, 0, 0] }
        case "utf-32be": bytes = text.unicodeScalars.flatMap { [0, 0, 0, UInt8($0.value & 0xFF)] }
        case "utf-16le+bom": bytes = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        case "utf-16be+bom": bytes = [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        default: bytes = [0xFF, 0xFE, 0, 0] + text.unicodeScalars.flatMap { [UInt8($0.value & 0xFF), 0, 0, 0] }
        }
        let body = Data(bytes)
        // Foundation transcodes these; the exception is deliberate (HALDocumentsAndJSON.md, "Which JSON the parser accepts").
        #expect(try JSONSerialization.jsonObject(with: body) is [String: Any])
        do throws(JSONParsingError) {
            _ = try JSONValue(parsing: body)
            Issue.record("\(encoding) must be refused")
        } catch {
            #expect(error.code == .invalidUTF8)
            #expect(error.byteOffset == 0)
            #expect(error.message.contains("UTF-8"))
        }
        #expect {
            try HALResource(parsing: body)
        } throws: { ($0 as? HALDocumentError)?.code == .invalidUTF8 }
    }

    @Test func foundationNumbersBeyondIntConvertLikeTheParserReadsThem() throws {
        // JSONSerialization boxes these as UInt64 and NSDecimalNumber; the bridge used to wrap
        // UInt64.max to -1 and turn 19-digit negative integers into doubles.
        let text =
            "[18446744073709551615, 9223372036854775807, -1234567890123456789, -9223372036854775808, "
            + "123456789012345678901234567890, 0.1000000000000000055511151231257827, 1.5, 7]"
        let foundation = try JSONSerialization.jsonObject(with: Data(text.utf8))
        let bridged = try #require(JSONValue(foundationObject: foundation))
        #expect(bridged == (try JSONValue(parsing: text)))
        #expect(bridged[0] == .double(Double(UInt64.max)))
        #expect(bridged[2] == .int(-1_234_567_890_123_456_789))
        #expect(bridged[3] == .int(Int.min))
    }
}
