import Foundation
import Testing

@testable import Halley
@testable import HalleyHAL
@testable import HalleyTransport

/// The HTTP `Link` header field (RFC 8288): its values become links of the resource beside
/// `_links`, and whatever cannot be read is a problem of the resource, never a failure.
@Suite struct LinkHeaderTests {
    static let pageURL = URL(string: "https://api.example.com/books/1/chapters?page=2")!  // Test-only literal.

    /// The resource a response with `link` (one `Link` field, or several combined with ", "
    /// as requesters combine repeated fields) and `body` makes.
    func resource(
        link: String?, body: JSONValue = ["name": "chapters"], url: URL = pageURL, headers: HeaderFields = [:]
    ) throws -> HALResource {
        var fields = headers
        if let link { fields["Link"] = link }
        return try HALResource(
            response: ResourceResponse(headers: fields, url: url, body: body.serialized()), options: HALParsingOptions()
        )
    }

    /// The byte offset of `needle` in `text`, as problems count.
    func offset(of needle: String, in text: String) -> Int {
        guard let range = text.range(of: needle) else { return -1 }
        return text.utf8.distance(from: text.startIndex, to: range.lowerBound)
    }

    /// `rel href` for every link, in order, with `(header)` after the header's.
    func summary(_ links: Links) -> [String] {
        links.relations.flatMap { relation in
            relation.links.enumerated().map { index, link in
                "\(relation.rel) \(link.href)"
                    + (index >= relation.links.count - relation.headerLinkCount ? " (header)" : "")
            }
        }
    }

    // MARK: RFC 8288 section 3.5

    @Test func rfcExampleTargetTitleAndRelativeReference() throws {
        let chapter = try resource(
            link: "<http://example.com/TheBook/chapter2>; rel=\"previous\"; title=\"previous chapter\"")
        let previous = try #require(chapter.links.link(for: "previous"))
        #expect(previous.href == "http://example.com/TheBook/chapter2")
        #expect(previous.title == "previous chapter")
        #expect(chapter.problems.isEmpty)

        // Relative to the response's URL; the extension relation is kept as written.
        let root = try resource(link: "</>; rel=\"http://example.net/foo\"")
        #expect(root.links.link(for: "http://example.net/foo")?.href == "https://api.example.com/")
    }

    @Test func rfcExampleTitleStarIsDecoded() throws {
        let book = try resource(
            link: "</TheBook/chapter2>; rel=\"previous\"; title*=UTF-8'de'letztes%20Kapitel, "
                + "</TheBook/chapter4>; rel=\"next\"; title*=UTF-8'de'n%c3%a4chstes%20Kapitel")
        #expect(book.links.link(for: "previous")?.title == "letztes Kapitel")
        #expect(book.links.link(for: "next")?.title == "n\u{E4}chstes Kapitel")
        #expect(book.links.link(for: "next")?.href == "https://api.example.com/TheBook/chapter4")
        #expect(book.problems.isEmpty)
    }

    @Test func rfcExampleRelListGivesEveryRelation() throws {
        let start = try resource(link: "<http://example.org/>; rel=\"start http://example.net/relation/other\"")
        #expect(
            summary(start.links) == [
                "start http://example.org/ (header)", "http://example.net/relation/other http://example.org/ (header)",
            ])
    }

    @Test func rfcExampleTwoValuesInOneField() throws {
        let index = try resource(
            link: "<https://example.org/>; rel=\"start\", <https://example.org/index>; rel=\"index\"")
        #expect(
            summary(index.links) == ["start https://example.org/ (header)", "index https://example.org/index (header)"])
    }

    @Test func rfcExampleAnchorOnAFragmentIsAnotherResourcesLink() throws {
        let terms = try resource(link: "</terms>; rel=\"copyright\"; anchor=\"#foo\"")
        #expect(terms.links.link(for: "copyright") == nil)
        // A correct link of another resource (RFC 8288, 3.2): not this one's, and not a problem.
        #expect(terms.problems.isEmpty)
    }

    @Test func aLinkAnchoredAtAnotherResourceIsNeitherThisOnesNorAProblem() throws {
        // Issue 38: `</orders/9>; rel="next"; anchor="/orders/5"` is a link of /orders/5.
        let page = try resource(link: "</orders/9>; rel=\"next\"; anchor=\"/orders/5\", </orders/2>; rel=\"prev\"")
        #expect(page.links.link(for: "next") == nil)
        #expect(page.links.rels == ["prev"])
        #expect(page.problems.isEmpty)
    }

    // MARK: Values and parameters

    @Test func severalFieldsAsRequestersCombineThem() throws {
        // Two `Link` lines arrive as one value joined with ", " (RFC 9110, 5.3).
        let page = try resource(
            link: "</books/1/chapters?page=3>; rel=next, </books/1/chapters?page=1>; rel=prev, , "
                + "<https://api.example.com/books/1>; rel=up")
        #expect(
            summary(page.links) == [
                "next https://api.example.com/books/1/chapters?page=3 (header)",
                "prev https://api.example.com/books/1/chapters?page=1 (header)",
                "up https://api.example.com/books/1 (header)",
            ])
        #expect(page.problems.isEmpty)
    }

    @Test func quotedStringsKeepCommasSemicolonsAndEscapes() throws {
        let page = try resource(
            link: #"<a>; rel="next"; title="one, two; \"three\" \\ four", <b>;rel=prev ;title = "x""#)
        #expect(page.links.link(for: .next)?.title == #"one, two; "three" \ four"#)
        #expect(page.links.link(for: .next)?.href == "https://api.example.com/books/1/a")
        #expect(page.links.link(for: "prev")?.title == "x")
        #expect(page.problems.isEmpty)
    }

    @Test func targetAttributesAreReadAsHALLinkProperties() throws {
        let page = try resource(
            link: "</x>; rel=alternate; type=application/hal+json; hreflang=de; hreflang=fr; "
                + "Title=\"First\"; title=\"Second\"; media=\"screen\"; name=full; profile=\"https://p.example/x\"")
        let link = try #require(page.links.link(for: "alternate"))
        #expect(link.type == "application/hal+json")
        #expect(link.hreflang == "de")  // the first of several
        #expect(link.title == "First")  // names without regard to case, the first wins
        #expect(link.name == "full")
        #expect(link.profile == "https://p.example/x")
        #expect(link.json["media"] == "screen")
        #expect(link.json.keys == ["href", "type", "hreflang", "title", "media", "name", "profile"])
        #expect(!link.isTemplated)
    }

    @Test func titleStarWinsOverTitleInEitherOrderAndLatin1Decodes() throws {
        let page = try resource(
            link: "</a>; rel=a; title*=UTF-8''%E2%82%AC%20rates; title=\"EUR rates\", "
                + "</b>; rel=b; title=\"GBP rates\"; title*=iso-8859-1'en'%A3%20rates, "
                + "</c>; rel=c; title*=\"UTF-8'en'quoted\"")
        #expect(page.links.link(for: "a")?.title == "\u{20AC} rates")
        #expect(page.links.link(for: "b")?.title == "\u{A3} rates")
        #expect(page.links.link(for: "c")?.title == "quoted")
        #expect(page.problems.isEmpty)
    }

    @Test func registeredRelationsIgnoreCaseAndExtensionsAreKeptAsWritten() throws {
        let page = try resource(link: "</n>; rel=\"Next PREV\", </x>; rel=\"https://Example.com/Rels/Orders\"")
        #expect(page.links.link(for: .next)?.href == "https://api.example.com/n")
        #expect(page.links.link(for: "prev")?.href == "https://api.example.com/n")
        #expect(page.links.link(for: "https://Example.com/Rels/Orders") != nil)
        #expect(page.links.link(for: "https://example.com/rels/orders") == nil)
        #expect(page.links.rels == ["next", "prev", "https://Example.com/Rels/Orders"])
    }

    @Test func anchorNamingThisResourceKeepsTheLink() throws {
        let field =
            "</a>; rel=a; anchor=\"\", </b>; rel=b; anchor=\"?page=2\", "
            + "</c>; rel=c; anchor=\"https://api.example.com/books/1/chapters?page=2\", "
            + "</d>; rel=d; anchor=\"/chapters/current\", </e>; rel=e; anchor=\"/elsewhere\""
        let page = try resource(link: field, body: ["_links": ["self": ["href": "/chapters/current"]]])
        #expect(page.links.rels == ["self", "a", "b", "c", "d"])
        #expect(page.problems.isEmpty, "the link anchored elsewhere is that resource's, not a problem")
    }

    @Test func emptyTargetIsTheResourceItself() throws {
        let page = try resource(link: "<>; rel=canonical")
        #expect(page.links.link(for: "canonical")?.href == Self.pageURL.absoluteString)
    }

    @Test func relativeTargetsResolveAgainstTheResponseURLNotTheSelfLink() throws {
        let page = try resource(
            link: "<next-page>; rel=next", body: ["_links": ["self": ["href": "https://elsewhere.example/x/y"]]])
        #expect(page.links.link(for: .next)?.href == "https://api.example.com/books/1/next-page")
        #expect(page.baseURL?.absoluteString == "https://elsewhere.example/x/y")
    }

    @Test func aSelfLinkInTheHeaderLeavesTheBaseToTheDocument() throws {
        // The base is the body's own `self` link or the response URL, as the document says;
        // a `self` link that only the header field gives does not move it.
        let page = try resource(link: "<https://other.example/z/>; rel=self", body: ["name": "chapters"])
        #expect(page.links.selfLink?.href == "https://other.example/z/")
        #expect(page.baseURL?.absoluteString == Self.pageURL.absoluteString)
        #expect(page.resolve("w")?.absoluteString == "https://api.example.com/books/1/w")
    }

    // MARK: Merging with _links

    @Test func linksWinForTheSameRelationAndURL() throws {
        let page = try resource(
            link: "</books/1/chapters?page=3>; rel=next; title=\"from the header\", "
                + "</books/1/chapters?page=9>; rel=\"NEXT\", </books/1/chapters?page=3>; rel=next, "
                + "</books/1>; rel=up, </books/1>; rel=up",
            body: [
                "_links": [
                    "self": ["href": "/books/1/chapters?page=2"], "next": ["href": "chapters?page=3"],
                ]
            ])
        #expect(
            summary(page.links) == [
                "self /books/1/chapters?page=2",
                "next chapters?page=3",
                "next https://api.example.com/books/1/chapters?page=9 (header)",
                "up https://api.example.com/books/1 (header)",
            ])
        let next = try #require(page.links.relation(.next))
        #expect(next.links.first?.title == nil, "the _links link is the one kept")
        #expect(next.isArray && next.headerLinkCount == 1)
        #expect(page.links.relation("up")?.isArray == false)
        // The document itself is as the server wrote it.
        #expect(page.json["_links"]?.objectValue?.keys == ["self", "next"])
    }

    @Test func headerRelationMatchesACuriedRelationOfLinks() throws {
        let orders = try resource(
            link:
                "</orders/2>; rel=\"https://example.com/rels/orders\", </orders/1>; rel=\"https://example.com/rels/orders\"",
            body: [
                "_links": [
                    "curies": [["name": "ex", "href": "https://example.com/rels/{rel}", "templated": true]],
                    "ex:orders": [["href": "/orders/1"]],
                ]
            ])
        let relation = try #require(orders.links.relation("ex:orders"))
        #expect(relation.links.map(\.href) == ["/orders/1", "https://api.example.com/orders/2"])
        #expect(relation.headerLinkCount == 1)
        #expect(orders.links.rels == ["ex:orders"])
    }

    @Test func noLinkFieldChangesNothing() throws {
        let body: JSONValue = ["_links": ["self": ["href": "/books/1/chapters?page=2"]], "name": "chapters"]
        let plain = try HALResource(parsing: body.serialized(), url: Self.pageURL)
        #expect(try resource(link: nil, body: body) == plain)
        #expect(try resource(link: "", body: body) == plain)
        #expect(try resource(link: " , ,", body: body) == plain)
    }

    // MARK: Malformed values

    /// Each malformed value: where its problem is (the offset of `at` in it) and a word of its
    /// message; the good value after it is still read.
    @Test(arguments: [
        ("http://a.example/x; rel=next", "http", "must start with <target>"),
        ("<http://a.example/x; rel=next", " rel", "not closed by \">\""),
        ("<http://a.example/x>; rel=next junk", "junk", "expected \";\" or \",\""),
        ("<http://a.example/x>; rel=\"next", "\"next", "is not closed"),
        ("<http://a.example/x>; rel=", ", </good>", "has no value"),
        ("<http://a.example/x>; =next", "=next", "expected a parameter name"),
        ("<http://a.example/x>; rel=ne\"xt", "\"xt", "quote it"),
        ("<http://a.example/x>; title=x", "<http", "has no rel parameter"),
        ("<http://a.example/x>; rel=\" \"", "<http", "has an empty rel"),
        ("<http://a.example/x>; rel", "<http", "has an empty rel"),
        ("<http://[bad>; rel=next", "<http", "is not a URI reference"),
        ("<http://a.example/x>; rel=next; anchor=\"http://[bad\"", "<http", "is not a URI reference"),
    ])
    func malformedValueIsAProblemAndTheNextValueIsRead(value: String, at needle: String, words: String) throws {
        let field = value + ", </good>; rel=good"
        let page = try resource(link: field)
        let offset = offset(of: needle, in: field)
        let problem = try #require(page.problems.first, "\(value)")
        #expect(page.problems.count == 1, "\(page.problems)")
        #expect(problem.code == .invalidLinkHeader)
        #expect(problem.path == "Link header, byte \(offset)", "\(problem)")
        #expect(problem.message.contains(words), "\(problem)")
        #expect(problem.relation == nil)
        #expect(problem.description.hasSuffix("at Link header, byte \(offset) in \(Self.pageURL.absoluteString)"))
        if !value.hasSuffix("\"next") {
            #expect(page.links.link(for: "good")?.href == "https://api.example.com/good", "\(value)")
        }
        #expect(page.links.link(for: .next) == nil)
    }

    @Test func theGuidesExampleProblemReadsAsItSays() throws {
        let page = try resource(link: "<a>; rel=next x")
        #expect(
            page.problems.map(\.description) == [
                #"expected ";" or "," after the link to <a>, found "x" at Link header, byte 14 in "#
                    + Self.pageURL.absoluteString
            ])
    }

    @Test func badTitleStarIsAProblemButTheLinkStays() throws {
        let field = "</x>; rel=next; title=\"plain\"; title*=UTF-8'en'%ZZ, </y>; rel=a; title*=koi8-r''x"
        let page = try resource(link: field)
        #expect(page.links.link(for: .next)?.title == "plain")
        #expect(page.links.link(for: "a")?.title == nil)
        #expect(page.links.link(for: "a")?.href == "https://api.example.com/y")
        #expect(
            page.problems.map(\.path) == ["Link header, byte 0", "Link header, byte \(offset(of: "</y>", in: field))"])
        #expect(page.problems.allSatisfy { $0.message.contains("RFC 8187") })
    }

    @Test func headerProblemsNeverBreakAValidLinksRelation() async throws {
        let requester = InMemoryRequester()
        let field = "<broken; rel=next, </c>; rel=next; x=\"open"
        await requester.register(
            "https://api.example.com/a",
            InMemoryRequester.Route(
                headers: ["Content-Type": "application/hal+json", "Link": field],
                body: Data(#"{"_links": {"next": {"href": "/b"}}}"#.utf8)))
        await requester.register("https://api.example.com/b", json: ["n": 2])
        let manager = ResourceManager(requester: requester)
        let a = try await manager.document(at: URL(string: "https://api.example.com/a")!)
        #expect(
            a.problems.map(\.path) == [
                "Link header, byte \(offset(of: " rel", in: field))",
                "Link header, byte \(offset(of: "\"open", in: field))",
            ])
        #expect(a.links.relation(.next)?.links.map(\.href) == ["/b"])
        let followed = try await manager.entry(URL(string: "https://api.example.com/a")!).follow("next").get()
        #expect(followed.objectValue?["n"] == 2)
    }

    @Test func malformedLinkPolicyFailStillReportsHeaderProblems() throws {
        let page = try HALResource(
            response: ResourceResponse(
                headers: ["Link": "<x>; title=y"], url: Self.pageURL, body: Data(#"{"a": 1}"#.utf8)),
            options: HALParsingOptions(malformedLinks: .fail))
        #expect(page.state["a"] == 1)
        #expect(page.problems.map(\.message) == ["the link to <x> has no rel parameter and was left out"])
    }

    @Test func manyProblemsAreListedUpToTheLimitAndCounted() throws {
        let value = Array(repeating: "junk", count: 50).joined(separator: ", ") + ", </ok>; rel=ok"
        let page = try resource(link: value)
        #expect(page.problems.count == LinkHeader.problemLimit + 1)
        #expect(page.problems.last?.message == "40 more problems of the Link header were not listed one by one")
        #expect(page.links.link(for: "ok") != nil)
    }

    // MARK: The parser on its own

    @Test func parserReadsValuesParametersAndOffsets() {
        let (values, problems) = LinkHeader.parse(#" <a> ; REL = "x y" ; Flag, ,<b>;t=1"#)
        #expect(problems.listed.isEmpty)
        #expect(
            values == [
                LinkHeader.Value(
                    target: "a",
                    parameters: [.init(name: "rel", value: "x y"), .init(name: "flag", value: "")], offset: 1),
                LinkHeader.Value(target: "b", parameters: [.init(name: "t", value: "1")], offset: 28),
            ])
    }

    @Test(
        arguments: [
            ("UTF-8''a%20b", "a b"), ("utf-8'en'%C3%A9", "\u{E9}"), ("ISO-8859-1''%E9", "\u{E9}"),
            ("UTF-8''%C3", nil), ("UTF-8''a b", nil), ("UTF-8'a%20b", nil), ("latin2''x", nil), ("UTF-8''%4", nil),
        ] as [(String, String?)])
    func extendedValues(text: String, decoded: String?) {
        #expect(LinkHeader.decodeExtendedValue(text) == decoded)
    }
}
