import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Link shapes, embedded-first, merge rules.
@Suite struct TraversalLinkShapeTests {
    let base = Graph.base

    @Test func toManyArrayAndToOneObjectAreFetchedAndMergedUnderTheRelName() async throws {
        let requester = await Graph.contacts()
        let manager = ResourceManager(requester: requester)
        let contact = try await manager.resource(from: Graph.url("/contacts/1"), includes: ["[contacts]", "website"])
        #expect(contact["name"] == "Contact 1")
        #expect(contact["contacts"]?.arrayValue?.map { $0["id"] } == ["2", "3"])
        #expect(contact["website"]?["url"] == "https://site1.example")
        #expect(contact["_links"]?["website"]?["href"] == "/websites/1", "_links is kept as it was")
        #expect(await requester.requestCount == 4)
    }

    @Test func toOneMayBeAnArrayOfExactlyOneLink() async throws {
        let requester = InMemoryRequester()
        await requester.serve("/a", links: ["owner": [Graph.link("/people/1")]])
        await requester.serve("/people/1", ["name": "Ann"])
        let result = try await ResourceManager(requester: requester).resource(
            from: Graph.url("/a"), includes: ["owner"])
        #expect(result["owner"]?["name"] == "Ann")
    }

    @Test func toOneWithSeveralLinksIsATypedErrorUnlessANameSelectsOne() async throws {
        let requester = InMemoryRequester()
        await requester.serve(
            "/a",
            links: [
                "admin": [
                    Graph.link("/people/1", ["name": "fred"]),
                    Graph.link("/people/2", ["name": "kate"]),
                ]
            ])
        await requester.serve("/people/2", ["name": "Kate"])
        let manager = ResourceManager(requester: requester)
        await #expect {
            try await manager.resource(from: Graph.url("/a"), includes: ["admin"])
        } throws: { error in
            guard let error = error as? HalleyError else { return false }
            return error.code == .ambiguousRelation && error.includePath == "admin"
                && error.message.contains("\"kate\"")
        }
        let picked = try await manager.resource(from: Graph.url("/a"), includes: ["admin@kate"])
        #expect(picked["admin"]?["name"] == "Kate")
        #expect(await requester.count(for: base + "/people/1") == 0)
    }

    @Test func toManySingleLinkPointsAtACollectionWithEmbeddedItems() async throws {
        let requester = InMemoryRequester()
        await requester.serve("/a", links: ["orders": Graph.link("/orders")])
        await requester.serve(
            "/orders",
            embedded: [
                "item": [
                    Graph.resource("/orders/1", ["n": 1]), Graph.resource("/orders/2", ["n": 2]),
                ]
            ])
        let result = try await ResourceManager(requester: requester).resource(
            from: Graph.url("/a"), includes: ["[orders]"])
        #expect(result["orders"]?.arrayValue?.map { $0["n"] } == [1, 2])
        #expect(await requester.requestCount == 2)
    }

    @Test func toManySingleLinkPointsAtACollectionWithLinkedItemsAndTheKeyIsConfigurable() async throws {
        let requester = InMemoryRequester()
        await requester.serve("/a", links: ["orders": Graph.link("/orders")])
        await requester.serve("/orders", links: ["entry": [Graph.link("/orders/2"), Graph.link("/orders/1")]])
        await requester.serve("/orders/1", ["n": 1])
        await requester.serve("/orders/2", ["n": 2])
        var options = CallOptions()
        options.collectionItemKey = "entry"
        let result = try await ResourceManager(requester: requester)
            .resource(from: Graph.url("/a"), includes: ["[orders]"], options: options)
        #expect(result["orders"]?.arrayValue?.map { $0["n"] } == [2, 1], "link order is kept")
    }

    @Test func springCollectionsNameTheirItemsAfterTheEntity() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            "http://localhost:8080/people?page=0&size=2",
            text: try String(
                decoding: Fixture.data("hal/spring-page.json"), as: UTF8.self))
        let manager = ResourceManager(requester: requester)
        let page = try await manager.resourceCollectionWithMetadata(
            from: try #require(URL(string: "http://localhost:8080/people?page=0&size=2")))
        #expect(page.items.map { $0["firstName"] } == ["Frodo", "Bilbo"])
        #expect(page.metadata["page"]?["totalPages"] == 5)
        #expect(page.links.link(for: .next)?.href == "http://localhost:8080/people?page=1&size=2")
    }

    @Test func emptyCollectionGivesAnEmptyArray() async throws {
        let requester = InMemoryRequester()
        await requester.serve("/a", links: ["orders": Graph.link("/orders")])
        await requester.serve("/orders", ["page": ["totalElements": 0]])
        let manager = ResourceManager(requester: requester)
        let result = try await manager.resource(from: Graph.url("/a"), includes: ["[orders]"])
        #expect(result["orders"] == [])
        #expect(try await manager.resourceCollection(from: Graph.url("/orders")) == [])
    }

    @Test func embeddedIsUsedFirstWithZeroRequestsAndNestedIncludesFollowItsLinks() async throws {
        let requester = InMemoryRequester()
        await requester.serve(
            "/a", links: ["contacts": [Graph.link("/contacts/1")]],
            embedded: [
                "contacts": [
                    Graph.resource(
                        "/contacts/1", links: ["website": Graph.link("/websites/1")],
                        ["name": "Embedded"])
                ]
            ],
            ["title": "root"])
        await requester.serve("/websites/1", ["url": "https://w"])
        let log = EventLog()
        let options = log.options
        let result = try await ResourceManager(requester: requester)
            .resource(from: Graph.url("/a"), includes: ["[contacts].website"], options: options)
        #expect(result["contacts"]?[0]?["name"] == "Embedded")
        #expect(result["contacts"]?[0]?["website"]?["url"] == "https://w")
        #expect(await requester.requestedURLs == [base + "/a", base + "/websites/1"])
        #expect(result["_embedded"] == nil, "the used embedded relation moved to the top level")
        #expect(log.all.contains { if case .embeddedUsed(let path, _, 1) = $0 { path == "[contacts]" } else { false } })
    }

    @Test func linksFirstFollowsTheLinkEvenWhenEmbeddedAndAtEveryDepth() async throws {
        let requester = InMemoryRequester()
        let embeddedWebsite = Graph.resource("/websites/1", ["url": "stale"])
        await requester.serve(
            "/a", links: ["contact": Graph.link("/contacts/1")],
            embedded: ["contact": Graph.resource("/contacts/1", ["name": "stale"])])
        await requester.serve(
            "/contacts/1", links: ["website": Graph.link("/websites/1")],
            embedded: ["website": embeddedWebsite], ["name": "fresh"])
        await requester.serve("/websites/1", ["url": "fresh"])
        var options = CallOptions()
        options.preference = .links
        let result = try await ResourceManager(requester: requester)
            .resource(from: Graph.url("/a"), includes: ["contact.website"], options: options)
        #expect(result["contact"]?["name"] == "fresh")
        #expect(result["contact"]?["website"]?["url"] == "fresh", "the option holds below the first fetch")
        #expect(await requester.requestCount == 3)
        // The unused embedded copies stay where they were.
        #expect(result["_embedded"]?["contact"]?["name"] == "stale")
    }

    @Test func aPlainAttributeSharingTheRelNameIsKeptAndTheRelationshipGoesToEmbedded() async throws {
        let requester = InMemoryRequester()
        await requester.serve("/a", links: ["website": Graph.link("/websites/1")], ["website": "https://plain.example"])
        await requester.serve("/websites/1", ["url": "https://w"])
        let log = EventLog()
        let options = log.options
        let result = try await ResourceManager(requester: requester)
            .resource(from: Graph.url("/a"), includes: ["website"], options: options)
        #expect(result["website"] == "https://plain.example")
        #expect(result["_embedded"]?["website"]?["url"] == "https://w")
        #expect(log.all.contains { if case .resultKeyTaken("website", "website") = $0 { true } else { false } })
    }

    @Test func aPlainAttributeIsNeverMistakenForAnEmbeddedRelationship() async throws {
        let requester = InMemoryRequester()
        await requester.serve("/a", ["contacts": ["not", "resources"]])
        let result = try await ResourceManager(requester: requester).resource(
            from: Graph.url("/a"), includes: ["[contacts]"])
        #expect(result["contacts"] == ["not", "resources"])
        #expect(await requester.requestCount == 1)
    }

    @Test func aMissingRelationIsLeftOutAndReported() async throws {
        let requester = InMemoryRequester()
        await requester.serve("/a", ["name": "no links"])
        let log = EventLog()
        let options = log.options
        let result = try await ResourceManager(requester: requester)
            .resource(from: Graph.url("/a"), includes: ["website", "[contacts]"], options: options)
        #expect(result.objectValue?.keys == ["_links", "name"])
        let missing = log.all.compactMap { event -> URL?? in
            if case .relationMissing(_, _, let url) = event { return url } else { return nil }
        }
        #expect(missing == [Graph.url("/a"), Graph.url("/a")], "the event names the resource")
    }

    @Test func curiedRelsMatchThroughAnotherPrefixAndLandUnderTheIncludeSpelling() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            base + "/", text: try String(decoding: Fixture.data("hal/curies-two-prefixes.json"), as: UTF8.self))
        await requester.serve("/contacts", embedded: ["item": [["name": "C"]]])
        let result = try await ResourceManager(requester: requester).resource(
            from: Graph.url("/"), includes: ["[acme:contacts]"])
        #expect(result["acme:contacts"]?[0]?["name"] == "C")
    }

    @Test func aMalformedLinkOfAnIncludedRelFailsWithItsPath() async throws {
        let requester = InMemoryRequester()
        await requester.register(base + "/a", text: #"{"_links": {"website": {"href": 7}}, "ok": true}"#)
        let manager = ResourceManager(requester: requester)
        await #expect {
            try await manager.resource(from: Graph.url("/a"), includes: ["website"])
        } throws: { error in
            guard let error = error as? HalleyError else { return false }
            return error.code == .malformedLink && error.documentError?.path == "$._links.website.href"
        }
        // Not following it is fine: the document is still usable.
        #expect(try await manager.resource(from: Graph.url("/a"))["ok"] == true)
    }
}
