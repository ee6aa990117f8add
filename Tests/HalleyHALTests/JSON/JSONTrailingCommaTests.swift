import Foundation
// Public API only (no @testable): these are the documents from issue #14 as a user hands them to us.
import HalleyHAL
import HalleyTestFixtures
import Testing

/// Documents that Foundation reads and we used to refuse (issue #14).
@Suite struct JSONTrailingCommaTests {
    @Test func jsonValueAcceptsATrailingCommaInAnObject() throws {
        #expect(try JSONValue(parsing: #"{"a":1,}"#) == ["a": 1])
    }

    @Test func jsonValueAcceptsATrailingCommaInAnArray() throws {
        #expect(try JSONValue(parsing: "[1,2,]") == [1, 2])
    }

    @Test(
        arguments: [
            (#"{"a":1 , }"#, ["a": 1]),
            ("[1,2,\n\t]", [1, 2]),
            (#"{"a":{"b":[1,[2,],{},],},}"#, ["a": ["b": [1, [2], [:]]]]),
            ("[[],{},]", [[], [:]]),
        ] as [(String, JSONValue)])
    func jsonValueAcceptsTrailingCommasAtEveryDepthAndAroundWhitespace(text: String, expected: JSONValue) throws {
        #expect(try JSONValue(parsing: text) == expected)
    }

    @Test func halResourceAcceptsATrailingCommaInAnObject() throws {
        let body = Data(#"{"a":1,"_links":{"self":{"href":"/a",},},}"#.utf8)
        let resource = try HALResource(parsing: body, url: URL(string: "https://example.com/"))
        #expect(resource.state["a"] == .int(1))
        #expect(resource.links.selfLink?.href == "/a")
    }

    @Test func halResourceReadsATrailingCommaInARootArrayAsJSONButRefusesTheRoot() {
        // The JSON is fine now, so the complaint is the one about HAL, not about syntax.
        #expect {
            try HALResource(parsing: Data("[1,2,]".utf8), url: nil)
        } throws: { ($0 as? HALDocumentError)?.code == .resourceNotObject }
    }

    @Test func theHALDraftSectionSixExampleWithItsTrailingCommaParses() throws {
        let body = try Fixture.data("hal/draft-section-6.json")
        #expect(String(decoding: body, as: UTF8.self).contains(#""status": "shipped","#))

        let value = try JSONValue(parsing: body)
        #expect(value["_embedded"]?["orders"]?[0]?["status"] == "shipped")

        let orders = try HALResource(parsing: body, url: URL(string: "https://example.org/orders"))
        #expect(orders.state["currentlyProcessing"] == .int(14))
        #expect(orders.links.link(for: "find")?.templated == true)
        let embedded = orders.embedded.resources(for: "orders")
        #expect(embedded.map { $0.state["status"] } == ["shipped", "processing"])
        #expect(embedded[0].state["total"] == .double(30))
        #expect(embedded[0].links.link(for: "basket")?.href == "/baskets/98712")
        #expect(orders.problems.isEmpty)
    }

    @Test(arguments: [
        ("[,]", JSONParsingError.Code.unexpectedCharacter, 1, "$[0]"),
        ("{,}", .unexpectedCharacter, 1, "$"),
        ("[1,,2]", .unexpectedCharacter, 3, "$[1]"),
        ("[1,,]", .unexpectedCharacter, 3, "$[1]"),
        (#"{"a":1,,}"#, .unexpectedCharacter, 7, "$"),
        ("[1,}", .unexpectedCharacter, 3, "$[1]"),
        (#"{"a":[1,}"#, .unexpectedCharacter, 8, "$.a[1]"),
        ("[1,", .unexpectedEnd, 3, "$[1]"),
        ("[1, ", .unexpectedEnd, 4, "$[1]"),
        (#"{"a":1,"#, .unexpectedEnd, 7, "$"),
        ("[1,]]", .trailingCharacters, 4, "$"),
    ])
    func commasThatAreNotTrailingStayTypedErrorsWithAnOffset(
        text: String, code: JSONParsingError.Code, offset: Int, path: String
    ) {
        #expect {
            try JSONValue(parsing: text)
        } throws: { error in
            guard let error = error as? JSONParsingError else { return false }
            return error.code == code && error.byteOffset == offset && error.path == path
        }
    }

    @Test func halResourceKeepsTheJSONErrorAndItsOffsetForStillInvalidCommas() throws {
        do throws(HALDocumentError) {
            _ = try HALResource(parsing: Data(#"{"_links":{},,}"#.utf8), url: nil)
            Issue.record("a doubled comma must not parse")
        } catch {
            #expect(error.code == .invalidJSON)
            let json = try #require(error.jsonError)
            #expect(json.code == .unexpectedCharacter)
            #expect(json.byteOffset == 13)
        }
    }
}
