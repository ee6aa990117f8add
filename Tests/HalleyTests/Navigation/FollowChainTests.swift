import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

@Suite struct FollowChainTests {
    let base = Graph.base

    private func api() async -> InMemoryRequester {
        let requester = InMemoryRequester()
        await requester.serve(
            "/",
            links: [
                "curies": [["name": "ex", "href": "https://docs.example.com/{rel}", "templated": true]],
                "ex:contacts": Graph.link("/contacts{?page}", ["templated": true]),
                "ex:contact": Graph.link("/contacts/{id}", ["templated": true]),
                "ex:legacy": Graph.link("/legacy", ["deprecation": "https://docs.example.com/legacy"]),
            ],
            embedded: [
                "ex:me": Graph.resource("/contacts/1", links: ["website": Graph.link("/websites/1")], ["id": "1"])
            ])
        await requester.serve(
            "/contacts?page=0", links: ["next": Graph.link("/contacts?page=1")],
            embedded: ["item": [Graph.resource("/contacts/1", ["id": "1", "name": "Ann"])]])
        await requester.serve(
            "/contacts?page=1", links: ["prev": Graph.link("/contacts?page=0")],
            embedded: ["item": [Graph.resource("/contacts/2", ["id": "2", "name": "Bob"])]])
        await requester.serve(
            "/contacts/2", links: ["website": Graph.link("/websites/2"), "up": Graph.link("/")],
            ["id": "2", "name": "Bob"])
        await requester.serve("/websites/1", ["id": "w1", "url": "https://ann.example"])
        await requester.serve("/websites/2", ["id": "w2", "url": "https://bob.example"])
        await requester.register(base + "/legacy", json: ["old": true])
        return requester
    }

    struct Person: Decodable, Equatable {
        let id: String
        let name: String
        let website: Site?
    }
    struct Site: Decodable, Equatable { let id: String }

    @Test func followsTemplatedRelsHopByHopAndDecodesTheEnd() async throws {
        let requester = await api()
        let manager = ResourceManager(requester: requester)
        let page = try await manager.entry(base + "/").follow("ex:contacts", ["page": 0]).follow("next")
            .page(of: Person.self)
        #expect(page.items.map(\.name) == ["Bob"])
        #expect(page.previous?.href == "/contacts?page=0")

        let bob = try await manager.entry(Graph.url("/")).follow("ex:contact", ["id": "2"])
            .get(Person.self, includes: ["website"])
        #expect(bob == Person(id: "2", name: "Bob", website: Site(id: "w2")))
        #expect(await requester.count(for: base + "/") == 2, "once per chain run")
    }

    @Test func embeddedResourcesAreReusedWithoutARequest() async throws {
        let requester = await api()
        let log = EventLog()
        let options = log.options
        let manager = ResourceManager(requester: requester)
        let website = try await manager.entry(base + "/", options: options).follow("ex:me").follow("website").get()
        #expect(website["url"] == "https://ann.example")
        #expect(await requester.requestedURLs == [base + "/", base + "/websites/1"])
        #expect(log.all.contains { if case .embeddedUsed("ex:me", _, _) = $0 { true } else { false } })
    }

    @Test func eachURLIsRequestedOncePerRun() async throws {
        let requester = await api()
        let manager = ResourceManager(requester: requester)
        // / → contact 2 → up (/) → contact 2: the second visits come from the fetch table.
        let again = try await manager.entry(base + "/").follow("ex:contact", ["id": "2"]).follow("up")
            .follow("ex:contact", ["id": "2"]).get(Person.self)
        #expect(again.name == "Bob")
        #expect(await requester.requestedURLs == [base + "/", base + "/contacts/2"])
    }

    @Test func aMissingRelNamesTheHopAndTheAvailableRels() async throws {
        let manager = ResourceManager(requester: await api())
        await #expect {
            try await manager.entry(base + "/").follow("ex:contact", ["id": "2"]).follow("ex:orders").resource()
        } throws: { error in
            guard let error = error as? HalleyError else { return false }
            return error.code == .missingRelation && error.message.contains("hop 2 (ex:orders)")
                && error.message.contains("website") && error.message.contains("up")
                && error.includePath == "ex:contact.ex:orders"
        }
    }

    @Test func actingOnTheEndOfAChainDoesNotFetchIt() async throws {
        let requester = await api()
        await requester.register(base + "/contacts/9") { request in
            ResourceResponse(status: request.method == .delete ? 204 : 405, url: request.url, body: Data())
        }
        let manager = ResourceManager(requester: requester)
        let chain = manager.entry(base + "/").follow("ex:contact", ["id": "9"])
        #expect(try await chain.url() == Graph.url("/contacts/9"))
        let deleted = try await chain.send(.delete)
        #expect(deleted.status == 204)
        #expect(await requester.requests.filter { $0.url.path == "/contacts/9" }.map(\.method) == [.delete])
    }

    @Test func deprecatedHopsWarn() async throws {
        let log = EventLog()
        let options = log.options
        _ = try await ResourceManager(requester: await api()).entry(base + "/", options: options).follow("ex:legacy")
            .get()
        #expect(
            log.all.contains {
                if case .deprecatedLinkFollowed(_, let url, _) = $0 { url.path == "/legacy" } else { false }
            })
    }

    /// An SDK wrapping chains in its own types, as the follow-chains guide shows.
    struct ContactsAPI {
        let root: FollowChain
        var contacts: FollowChain { root.follow("ex:contacts", ["page": 0]) }
        func contact(id: String) -> FollowChain { root.follow("ex:contact", ["id": .string(id)]) }
    }

    @Test func chainsComposeInsideYourOwnSDKTypes() async throws {
        let sdk = ContactsAPI(root: ResourceManager(requester: await api()).entry(base + "/"))
        #expect(try await sdk.contact(id: "2").get(Person.self).name == "Bob")
        #expect(try await sdk.contacts.page(of: Person.self).items.map(\.name) == ["Ann"])
    }
}

/// Typed requests, pages and paged sequences cross task boundaries.
@Suite struct SendableRequestTests {
    struct Item: Decodable, Sendable { let n: Int }

    @Test func requestsPagesAndSequencesCanBeSentToOtherTasks() async throws {
        let requester = InMemoryRequester()
        await requester.serve("/items", embedded: ["item": [["n": 1], ["n": 2]]])
        let manager = ResourceManager(requester: requester)
        let chain = manager.entry(Graph.base + "/items")
        let page = try await Task.detached { try await chain.page(of: Item.self) }.value
        #expect(page.items.map(\.n) == [1, 2])
        let request = HalleyRequest<Item>(url: Graph.base + "/items")
        let items = try await Task.detached { try await manager.requestCollection(request) }.value
        #expect(items.map(\.n) == [1, 2])
        let sequence = manager.items(Item.self, from: Graph.url("/items"))
        let all = try await Task.detached { try await sequence.collect() }.value
        #expect(all.map(\.n) == [1, 2])
        let sentPage = await Task.detached { page }.value
        #expect(sentPage.items.count == 2)
    }
}
