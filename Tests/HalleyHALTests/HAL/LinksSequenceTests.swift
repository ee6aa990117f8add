import Foundation
import HalleyHAL
import HalleyTestFixtures
import Testing

/// `for (rel, link) in resource.links`: every link with its relation, in document order, each
/// array's links in turn, whichever way the links were made.
@Suite struct LinksSequenceTests {
    /// The links of `hal/link-arrays.json` as the loop sees them.
    static let linkArrays = [
        "self https://api.example.com/contacts/1", "one /one", "many /many/1", "many /many/2", "many /many/{id}",
        "plain /plain",
    ]

    private static func listed(_ links: Links) -> [String] {
        var listed: [String] = []
        for (rel, link) in links {
            listed.append("\(rel.rawValue) \(link.href)")
        }
        return listed
    }

    @Test func aParsedDocumentListsEveryLinkInDocumentOrder() throws {
        let links = try HALResource(parsing: Fixture.data("hal/link-arrays.json")).links
        #expect(Self.listed(links) == Self.linkArrays)
        #expect(links.underestimatedCount == 6)
        #expect(links.filter { $0.link.isTemplated }.map(\.rel) == ["many"])
        #expect(links.first { $0.link.name == "second" }?.link.title == "Second")
    }

    @Test func curiesAreListedLikeAnyRelation() throws {
        let orders = try HALResource(parsing: Fixture.data("hal/orders.json"))
        #expect(
            Self.listed(orders.links) == [
                "self /orders", "curies http://example.com/docs/rels/{rel}", "next /orders?page=2",
                "ea:find /orders{?id}", "ea:admin /admins/2", "ea:admin /admins/5",
            ])
        #expect(orders.links.underestimatedCount == 6)
    }

    /// A document with a malformed link keeps its relations apart from the JSON object: the
    /// loop lists what was kept and skips the malformed link, as lookups do.
    @Test func linksWithAProblemListWhatWasKept() throws {
        let body = Data(
            #"{"_links":{"self":{"href":"/a"},"item":[{"href":"/i/1"},{"href":2},{"href":"/i/3"}],"x":{"href":"/x"}}}"#
                .utf8)
        let links = try HALResource(parsing: body).links
        #expect(links.problems.count == 1)
        #expect(Self.listed(links) == ["self /a", "item /i/1", "item /i/3", "x /x"])
        #expect(links.underestimatedCount == 4)
    }

    @Test func linksMadeInCodeOrDecodedAreListedToo() throws {
        let made = Links(["self": [Link(href: "/a")], "none": [], "item": [Link(href: "/1"), Link(href: "/2")]])
        #expect(Self.listed(made) == ["self /a", "item /1", "item /2"])
        #expect(Array(Links()).isEmpty)

        let decoded = try JSONDecoder().decode(
            Links.self, from: Data(#"{"self":{"href":"/a"},"item":[{"href":"/1"},{"href":"/2"}]}"#.utf8))
        #expect(Set(Self.listed(decoded)) == ["self /a", "item /1", "item /2"])
    }

    /// The original Halley's optional `templated` stays; `isTemplated` is the plain `Bool`.
    @Test func isTemplatedIsAPlainBoolBesideTheOptional() {
        #expect(Link(href: "/a").isTemplated == false)
        #expect(Link(href: "/a").templated == nil)
        #expect(Link(href: "/a{?q}", templated: true).isTemplated == true)
        #expect(Link(href: "/a", templated: false).isTemplated == false)
    }
}
