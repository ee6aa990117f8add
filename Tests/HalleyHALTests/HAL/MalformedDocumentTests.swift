import Foundation
import HalleyTestFixtures
import Testing

@testable import HalleyHAL

/// Every malformed shape yields its own typed error with the JSON path of the problem.
@Suite struct MalformedDocumentTests {
    private func parseError(_ fixture: String, options: HALParsingOptions = HALParsingOptions()) throws
        -> HALDocumentError?
    {
        let data = try Fixture.data("hal/malformed/\(fixture)")
        do {
            _ = try HALResource(parsing: data, url: URL(string: "https://api.example.com/doc"), options: options)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        ("truncated.json", HALDocumentError.Code.invalidJSON, "$._links"),
        ("root-array.json", .resourceNotObject, "$"),
        ("links-array.json", .linksNotObject, "$._links"),
        ("embedded-string.json", .embeddedNotObject, "$._embedded"),
        ("nested-links-not-object.json", .linksNotObject, "$._embedded.a._links"),
    ])
    func structuralProblemsAlwaysThrow(fixture: String, code: HALDocumentError.Code, path: String) throws {
        let error = try #require(try parseError(fixture))
        #expect(error.code == code)
        #expect(error.path == path)
        #expect(error.url?.absoluteString == "https://api.example.com/doc")
        #expect(error.description.contains(path))
    }

    @Test(arguments: [
        ("href-missing.json", HALDocumentError.Code.missingHref, "$._links.self", "self"),
        ("href-number.json", .hrefNotString, "$._links.self.href", "self"),
        ("templated-string.json", .templatedNotBoolean, "$._links.search.templated", "search"),
        ("link-array-non-objects.json", .linkNotObject, "$._links.items[1]", "items"),
        ("title-number.json", .linkPropertyNotString, "$._links.self.title", "self"),
        // Plain values in _embedded are data by default (see PeerDocumentTests), errors when strict.
        ("embedded-array-non-object.json", .resourceNotObject, "$._embedded.item[1]", "item"),
    ])
    func malformedLinksThrowInStrictMode(fixture: String, code: HALDocumentError.Code, path: String, rel: String) throws
    {
        let error = try #require(try parseError(fixture, options: HALParsingOptions(malformedLinks: .fail)))
        #expect(error.code == code)
        #expect(error.path == path)
        #expect(error.relation == LinkRelation(rel))
    }

    /// Messages name the JSON kind with the article it takes: "an array", "an object", never
    /// "a array".
    @Test(arguments: [
        ("[1]", "a HAL document must be an object, not an array"),
        (#"{"_embedded": []}"#, "_embedded is an array, not an object"),
        (#"{"_links": "x"}"#, "_links is a string, not an object"),
        (#"{"_links": {"a": [{"href": "/a"}, []]}}"#, "link array of a holds an array, not a link object"),
        (#"{"_links": {"a": 1}}"#, "relation a is a number, not a link object or an array of links"),
        (#"{"_links": {"a": {"href": {}}}}"#, "link href is an object, not a string"),
        (#"{"_links": {"a": {"href": "/a", "templated": []}}}"#, "link templated is an array, not true or false"),
        (#"{"_links": {"a": {"href": "/a", "title": true}}}"#, "link title is a boolean, not a string"),
        (#"{"_embedded": {"a": [{}, []]}}"#, "embedded a holds an array, not a resource object"),
        (#"{"_embedded": {"a": [{}, null]}}"#, "embedded a holds null, not a resource object"),
    ])
    func messagesNameTheKindWithItsArticle(body: String, message: String) throws {
        let strict = HALParsingOptions(malformedLinks: .fail)
        let error = try #require(throws: HALDocumentError.self) {
            try HALResource(parsing: Data(body.utf8), options: strict)
        }
        #expect(error.message == message)
    }

    @Test func malformedLinksAreReportedNotDroppedByDefault() throws {
        let resource = try HALResource(parsing: Fixture.data("hal/malformed/link-array-non-objects.json"))
        #expect(resource.links["items"].map(\.href) == ["/a"])
        #expect(resource.problems.map(\.path) == ["$._links.items[1]", "$._links.items[2]"])
        #expect(resource.links.problems(for: "items").count == 2)
        #expect(resource.links.problems(for: "self").isEmpty)

        let templated = try HALResource(parsing: Fixture.data("hal/malformed/templated-string.json"))
        #expect(templated.links["search"].isEmpty)
        #expect(templated.problems.first?.code == .templatedNotBoolean)
    }

    @Test func invalidUTF8AndDeepNestingAreTyped() throws {
        var bytes = Array(#"{"_links": {}, "name": ""#.utf8)
        bytes += [0xFF, 0xFE]
        bytes += Array(#""}"#.utf8)
        #expect {
            try HALResource(parsing: Data(bytes))
        } throws: { ($0 as? HALDocumentError)?.code == .invalidUTF8 }

        let deep = Data(("{\"a\":" + String(repeating: "[", count: 100_000)).utf8)
        #expect {
            try HALResource(parsing: deep)
        } throws: { ($0 as? HALDocumentError)?.code == .nestingTooDeep }
    }

    @Test func htmlIsInvalidJSON() {
        #expect {
            try HALResource(parsing: Data("<html><body>Login</body></html>".utf8))
        } throws: { error in
            guard let error = error as? HALDocumentError else { return false }
            return error.code == .invalidJSON && error.jsonError?.byteOffset == 0
        }
    }
}
