import Foundation
import HalleyTestFixtures
import Testing

@testable import HalleyHAL

@Suite struct LinksTests {
    @Test func readsAllEightLinkProperties() throws {
        let links = try HALResource(parsing: Fixture.data("hal/link-arrays.json")).links
        let second = try #require(links.link(for: "many", named: "second"))
        #expect(second.href == "/many/2")
        #expect(second.templated == nil)
        #expect(second.type == "application/hal+json")
        #expect(second.deprecation == "https://example.com/deprecated")
        #expect(second.isDeprecated)
        #expect(second.name == "second")
        #expect(second.profile == "https://example.com/profiles/item")
        #expect(second.title == "Second")
        #expect(second.hreflang == "en")
    }

    @Test func templatedIsTrueOnlyWhenTheJSONSaysTrue() throws {
        let links = try HALResource(parsing: Fixture.data("hal/link-arrays.json")).links
        #expect(links.link(for: "plain")?.templated == false)
        #expect(links.link(for: "one")?.templated == nil, "no templated in the JSON reads nil, as in Halley")
        #expect(links.link(for: "one")?.isTemplated == false)
        #expect(links["many"].map(\.isTemplated) == [false, false, true])
        #expect(links["many"].map(\.templated) == [nil, nil, true])
    }

    @Test func remembersSingleObjectVersusArrayAndRoundTrips() throws {
        let data = try Fixture.data("hal/link-arrays.json")
        let links = try HALResource(parsing: data).links
        #expect(links.relation("none")?.isArray == true)
        #expect(links.relation("none")?.links.isEmpty == true)
        #expect(links.relation("one")?.isArray == true)
        #expect(links.relation("one")?.links.count == 1)
        #expect(links.relation("many")?.links.count == 3)
        #expect(links.relation("plain")?.isArray == false)
        #expect(links.relation("self")?.isArray == false)

        let original = try JSONValue(parsing: data)["_links"]
        #expect(JSONValue.object(links.json) == original)
        // Properties HAL does not define are kept too.
        #expect(links["many"].last?.json["x-extra"] == ["kept": true])

        let encoded = try JSONEncoder().encode(links)
        let decoded = try JSONDecoder().decode(Links.self, from: encoded)
        #expect(decoded.relation("one")?.isArray == true)
        #expect(decoded.relation("plain")?.isArray == false)
        #expect(try JSONValue(parsing: encoded) == original)
    }

    @Test func lookupByRelAndName() throws {
        let links = try HALResource(parsing: Fixture.data("hal/link-arrays.json")).links
        #expect(links.link(for: "many", named: "first")?.href == "/many/1")
        #expect(links.link(for: "many", named: "missing") == nil)
        #expect(links.links(for: "absent") == nil, "absent, as in the original Halley")
        #expect(links["absent"].isEmpty)
        #expect(links["many"].count == 3)
        #expect(links.selfLink?.href == "https://api.example.com/contacts/1")
    }

    @Test func curiesExpandToDocumentation() throws {
        let links = try HALResource(parsing: Fixture.data("hal/curies-two-prefixes.json")).links
        #expect(links.curies.map(\.name) == ["ex", "acme", "crm"])
        #expect(links.documentationURL(for: "ex:contacts")?.absoluteString == "https://docs.example.com/rels/contacts")
        #expect(links.documentationURL(for: "crm:leads")?.absoluteString == "https://crm.example.org/relations/leads")
        #expect(links.documentationURL(for: "next") == nil)
        #expect(links.documentationURL(for: "zz:unbound") == nil)
    }

    @Test func findsACuriedRelByCompactFormExpandedFormOrAnotherPrefix() throws {
        let links = try HALResource(parsing: Fixture.data("hal/curies-two-prefixes.json")).links
        #expect(links.link(for: "ex:contacts")?.href == "/contacts")
        #expect(links.link(for: "https://docs.example.com/rels/contacts")?.href == "/contacts")
        #expect(links.link(for: "acme:contacts")?.href == "/contacts", "acme is bound to the same namespace as ex")
        #expect(links.link(for: "crm:contacts") == nil, "crm is another namespace")
        #expect(links.link(for: "https://crm.example.org/relations/leads")?.deprecation != nil)
        #expect(links.expandedURI(of: "ex:contacts") == "https://docs.example.com/rels/contacts")
    }

    @Test func embeddedResourcesMayRebindAPrefixAndTheInnerBindingWins() throws {
        let root = try HALResource(parsing: Fixture.data("hal/curies-two-prefixes.json"))
        let owner = try #require(root.embedded.resource(for: "crm:owner"))
        #expect(root.embedded.resource(for: "https://crm.example.org/relations/owner") != nil)
        // Inside the owner, ex means other.example.net; crm is still inherited.
        #expect(owner.links.expandedURI(of: "ex:contacts") == "https://other.example.net/rels/contacts")
        #expect(owner.links.link(for: "https://other.example.net/rels/contacts")?.href == "contacts")
        #expect(owner.links.link(for: "https://docs.example.com/rels/contacts") == nil)
        #expect(owner.links.expandedURI(of: "crm:leads") == "https://crm.example.org/relations/leads")
        let contacts = try #require(owner.links.link(for: "ex:contacts"))
        #expect(owner.url(for: contacts)?.absoluteString == "https://people.example.net/owners/contacts")
    }

    @Test func linksBuiltInCode() throws {
        let links = Links(["self": [Link(href: "/a")], "item": [Link(href: "/b"), Link(href: "/c", title: "C")]])
        #expect(links.selfLink?.href == "/a")
        #expect(links.relation("item")?.isArray == true)
        #expect(links.json["item"]?[1]?["title"] == "C")
        #expect(Link(href: "/x{?y}", templated: true).json == ["href": "/x{?y}", "templated": true])
    }

    /// A parsed `_links` whose links are all well formed is read from the document on demand;
    /// every question must get the answer the same links built in code give.
    @Test func wellFormedParsedLinksAnswerAsLinksBuiltInCode() throws {
        let body = """
            {"_links": {"self": {"href": "/orders/1", "title": null},
                        "item": [{"href": "/items/1"}, {"href": "/items/2", "name": "b", "templated": false}],
                        "none": [],
                        "find": {"href": "/orders{?q}", "templated": true, "x-extra": 1}}}
            """
        let parsed = try HALResource(parsing: Data(body.utf8)).links
        let item2 = try Link(json: ["href": "/items/2", "name": "b", "templated": false])
        let find = try Link(json: ["href": "/orders{?q}", "templated": true, "x-extra": 1])
        let built = Links([
            "self": [try Link(json: ["href": "/orders/1", "title": nil])],
            "item": [Link(href: "/items/1"), item2],
            "none": [],
            "find": [find],
        ])
        #expect(parsed == built)
        #expect(parsed.hashValue == built.hashValue)
        #expect(parsed.relations == built.relations)
        #expect(parsed.rels == ["self", "item", "none", "find"])
        #expect(parsed.json == built.json)
        #expect(parsed.link(for: "item") == Link(href: "/items/1"))
        #expect(parsed.link(for: "none") == nil)
        #expect(parsed.links(for: "item") == [Link(href: "/items/1"), item2])
        #expect(parsed.link(for: "item", named: "b") == item2)
        #expect(parsed.relation("find")?.isArray == false)
        #expect(parsed.relation("none")?.isArray == true)
        #expect(parsed.relation("missing") == nil)
        #expect(parsed.linkCount(for: "item") == 2)
        #expect(parsed.linkCount(for: "find") == 1)
        #expect(parsed.contains("none") && !parsed.contains("missing"))
        #expect(parsed.selfLink?.href == "/orders/1")
    }

    /// One malformed link anywhere keeps the whole `_links` on the checked path: the good
    /// links are all there, the bad one is a problem, not a link.
    @Test func aMalformedLinkIsLeftOutWhereverItIs() throws {
        let body = """
            {"_links": {"self": {"href": "/a"}, "item": [{"href": "/i/1"}, {"href": 2}]}}
            """
        let links = try HALResource(parsing: Data(body.utf8), options: HALParsingOptions(malformedLinks: .report))
            .links
        #expect(links.links(for: "item") == [Link(href: "/i/1")])
        #expect(links.linkCount(for: "item") == 1)
        #expect(links.problems.map(\.code) == [.hrefNotString])
    }
}
