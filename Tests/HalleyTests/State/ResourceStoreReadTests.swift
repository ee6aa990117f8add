import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Reading state through handles: freshness, sharing, revalidation, seeding, scopes, bounds.
@Suite struct ResourceStoreReadTests {
    @Test func aFreshStateIsUsedWithNoRequestAndAStaleOneIsRevalidated() async throws {
        let api = ScriptedAPI()
        await api.serve(
            "/a", Graph.resource("/a", ["v": 1]), headers: ["Cache-Control": "max-age=60", "ETag": "\"1\""])
        await api.serve("/b", Graph.resource("/b", ["v": 1]), headers: ["Cache-Control": "no-cache", "ETag": "\"1\""])
        await api.serve("/c", Graph.resource("/c", ["v": 1]), headers: ["Cache-Control": "no-store"])
        let store = ResourceStore()
        let manager = await stateManager(api, store: store)
        for path in ["/a", "/b", "/c"] {
            let handle = manager.resource(at: Graph.url(path))
            #expect(try await handle.get().resource.state["v"] == 1)
            #expect(try await handle.get().resource.state["v"] == 1)
        }
        #expect(await api.requester.count(for: Graph.base + "/a") == 1, "max-age: the second get sends nothing")
        #expect(await api.requester.count(for: Graph.base + "/b") == 2, "no-cache: every get asks")
        let revalidation = try #require(await api.requester.requests.last { $0.url.path == "/b" })
        #expect(revalidation.headers["If-None-Match"] == "\"1\"")
        #expect(await api.requester.count(for: Graph.base + "/c") == 2, "no-store: never kept")
        #expect(await manager.resource(at: Graph.url("/c")).current == nil)
        #expect(store.count == 2)
    }

    @Test func aDefaultFreshnessAppliesWhenTheResponseSaysNothing() async throws {
        let api = ScriptedAPI()
        await api.serve("/a", Graph.resource("/a", ["v": 1]), headers: [:])
        let unfresh = await stateManager(api, store: ResourceStore())
        _ = try await unfresh.resource(at: Graph.url("/a")).get()
        _ = try await unfresh.resource(at: Graph.url("/a")).get()
        #expect(await api.requester.count(for: Graph.base + "/a") == 2, "zero by default")
        let fresh = await stateManager(api, store: ResourceStore(defaultFreshness: .seconds(600)))
        _ = try await fresh.resource(at: Graph.url("/a")).get()
        _ = try await fresh.resource(at: Graph.url("/a")).get()
        #expect(await api.requester.count(for: Graph.base + "/a") == 3)
    }

    @Test func a304KeepsTheStoredStateAndMakesItFresh() async throws {
        let requester = InMemoryRequester()
        await requester.register(Graph.base + "/a") { request in
            if request.headers["If-None-Match"] == "\"7\"" {
                return ResourceResponse(
                    status: 304, headers: ["ETag": "\"7\"", "Cache-Control": "max-age=60"], url: request.url,
                    body: Data())
            }
            return ResourceResponse(
                headers: ["ETag": "\"7\"", "Cache-Control": "max-age=0"], url: request.url,
                body: Graph.resource("/a", ["v": 7]).serialized())
        }
        var configuration = ResourceManager.Configuration()
        configuration.store = ResourceStore()
        let handle = ResourceManager(requester: requester, configuration: configuration).resource(at: Graph.url("/a"))
        #expect(try await handle.get().etag == "\"7\"")
        let refreshed = try await handle.refresh()
        #expect(refreshed.resource.state["v"] == 7)
        #expect(refreshed.status == 200)
        #expect(!refreshed.isStale)
        _ = try await handle.get()
        #expect(await requester.requestCount == 2, "the 304's max-age made it fresh")
    }

    @Test func concurrentGetsShareOneRequest() async throws {
        let requester = InMemoryRequester(latency: .milliseconds(200))
        await requester.register(Graph.base + "/a", json: Graph.resource("/a", ["v": 1]))
        var configuration = ResourceManager.Configuration()
        configuration.store = ResourceStore()
        let handle = ResourceManager(requester: requester, configuration: configuration).resource(at: Graph.url("/a"))
        let states = try await withThrowingTaskGroup(of: ResourceState.self) { group in
            for _ in 0..<8 { group.addTask { try await handle.get() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(states.count == 8)
        #expect(states.allSatisfy { $0.resource.state["v"] == 1 })
        #expect(await requester.requestCount == 1)
    }

    @Test func typedGetDecodesWithTheManagersDecoder() async throws {
        struct Order: Decodable, Equatable {
            let totalAmount: Int
        }
        let api = ScriptedAPI()
        await api.serve("/orders/1", Graph.resource("/orders/1", ["total_amount": 30]))
        var configuration = ResourceManager.Configuration()
        configuration.store = ResourceStore()
        configuration.decoder.keyDecodingStrategy = .convertFromSnakeCase
        let manager = ResourceManager(requester: api.requester, configuration: configuration)
        #expect(try await manager.resource(at: Graph.url("/orders/1")).get(Order.self) == Order(totalAmount: 30))
    }

    @Test func handlesOfOneURLWrittenDifferentlyShareOneState() async throws {
        let api = ScriptedAPI()
        await api.serve("/a/b", Graph.resource("/a/b", ["v": 1]))
        let manager = await stateManager(api)
        let plain = manager.resource(at: Graph.url("/a/b"))
        let other = manager.resource(at: try #require(URL(string: "HTTPS://API.example.com:443/a/./x/../%62#top")))
        #expect(plain == other)
        #expect(other.url.absoluteString == Graph.base + "/a/b")
        _ = try await plain.get()
        #expect(try await other.get().resource.state["v"] == 1)
        #expect(await api.requester.requestCount == 1)
    }

    @Test func followGoesThroughTheResolverAndEmbeddedResourcesSeedTheStore() async throws {
        let api = ScriptedAPI()
        await api.serve(
            "/orders/1",
            Graph.resource(
                "/orders/1", links: ["customer": Graph.link("/customers/9"), "invoice": Graph.link("/invoices/1")],
                embedded: ["customer": Graph.resource("/customers/9", ["name": "Ada"])]))
        await api.serve("/invoices/1", Graph.resource("/invoices/1", ["paid": true]))
        let manager = await stateManager(api)
        let order = manager.resource(at: Graph.url("/orders/1"))
        let customer = try await order.follow("customer")
        #expect(customer.url == Graph.url("/customers/9"))
        let seeded = try #require(await customer.current)
        #expect(seeded.isEmbedded)
        #expect(try await customer.get().resource.state["name"] == "Ada")
        #expect(try await order.follow("invoice").get().resource.state["paid"] == true)
        #expect(await api.requester.requestedURLs == [Graph.base + "/orders/1", Graph.base + "/invoices/1"])
        await #expect(throws: HalleyError.self) { try await order.follow("nothing") }
    }

    @Test func embeddedResourcesWithoutSelfOrOnAnotherOriginAreNotStored() async throws {
        let api = ScriptedAPI()
        await api.serve(
            "/list",
            Graph.resource(
                "/list",
                embedded: [
                    "item": [
                        Graph.resource("/items/1", ["n": 1]),
                        ["n": 2],
                        Graph.resource("https://evil.example/items/3", ["n": 3]),
                        Graph.resource("items/4", ["n": 4]),
                    ]
                ]))
        let store = ResourceStore()
        let manager = await stateManager(api, store: store)
        _ = try await manager.resource(at: Graph.url("/list")).get()
        #expect(store.count == 3, "the list, /items/1 and /items/4 (resolved against the list)")
        #expect(await manager.resource(at: Graph.url("/items/1")).current?.resource.state["n"] == 1)
        #expect(await manager.resource(at: Graph.url("/items/4")).current?.resource.state["n"] == 4)
        #expect(await manager.resource(at: URL(string: "https://evil.example/items/3")!).current == nil)
    }

    @Test func anEmbeddedCopyNeverReplacesAFetchedStateAndMarksItStaleWhenItContradictsIt() async throws {
        let api = ScriptedAPI()
        await api.serve("/items/1", Graph.resource("/items/1", ["n": 1, "detail": "full"]))
        await api.serve("/same", Graph.resource("/same", embedded: ["item": Graph.resource("/items/1", ["n": 1])]))
        await api.serve("/newer", Graph.resource("/newer", embedded: ["item": Graph.resource("/items/1", ["n": 2])]))
        let manager = await stateManager(api)
        let item = manager.resource(at: Graph.url("/items/1"))
        _ = try await item.get()
        _ = try await manager.resource(at: Graph.url("/same")).get()
        var state = try #require(await item.current)
        #expect(!state.isEmbedded)
        #expect(state.resource.state["detail"] == "full", "the partial copy did not replace the full state")
        #expect(!state.isStale)
        _ = try await manager.resource(at: Graph.url("/newer")).get()
        state = try #require(await item.current)
        #expect(state.resource.state["detail"] == "full")
        #expect(state.isStale, "the copy says n is 2: the server changed since")
    }

    @Test func anEmbeddedCopyReplacesAnOlderEmbeddedCopyAndInheritsItsParentsFreshness() async throws {
        let api = ScriptedAPI()
        await api.serve(
            "/one", Graph.resource("/one", embedded: ["item": Graph.resource("/items/1", ["n": 1])]),
            headers: ["Cache-Control": "max-age=60"])
        await api.serve(
            "/two", Graph.resource("/two", embedded: ["item": Graph.resource("/items/1", ["n": 2])]),
            headers: ["Cache-Control": "no-cache"])
        let manager = await stateManager(api)
        let item = manager.resource(at: Graph.url("/items/1"))
        _ = try await manager.resource(at: Graph.url("/one")).get()
        #expect(try await item.get().resource.state["n"] == 1, "fresh for the parent's 60 s: no request")
        _ = try await manager.resource(at: Graph.url("/two")).get()
        let state = try #require(await item.current)
        #expect(state.resource.state["n"] == 2)
        #expect(state.isEmbedded)
        #expect(state.isStale, "no-cache, inherited from its parent")
        #expect(await api.requester.count(for: Graph.base + "/items/1") == 0)
    }

    @Test func twoCredentialScopesNeverSeeEachOthersState() async throws {
        let requester = InMemoryRequester()
        await requester.register(Graph.base + "/me") { request in
            ResourceResponse(
                headers: ["Cache-Control": "max-age=60"], url: request.url,
                body: Graph.resource("/me", ["who": .string(request.headers["Authorization"] ?? "nobody")])
                    .serialized())
        }
        var configuration = ResourceManager.Configuration()
        configuration.store = ResourceStore()
        let manager = ResourceManager(requester: requester, configuration: configuration)
        let alice = manager.resource(at: Graph.url("/me"), options: user("alice"))
        let bob = manager.resource(at: Graph.url("/me"), options: user("bob"))
        #expect(alice != bob)
        #expect(try await alice.get().resource.state["who"] == "Bearer alice")
        #expect(await bob.current == nil)
        #expect(try await bob.get().resource.state["who"] == "Bearer bob")
        #expect(try await alice.get().resource.state["who"] == "Bearer alice")
        #expect(await manager.resource(at: Graph.url("/me")).current == nil, "nor does a call without credentials")
        #expect(await requester.requestCount == 2)
    }

    @Test func theStoreIsBoundedByBytesLeastRecentlyUsedFirst() async throws {
        let api = ScriptedAPI()
        let padding = JSONValue.string(String(repeating: "x", count: 1_000))
        for name in ["a", "b", "c"] { await api.serve("/\(name)", Graph.resource("/\(name)", ["pad": padding])) }
        let store = ResourceStore(maximumBytes: 3_000)
        let manager = await stateManager(api, store: store)
        _ = try await manager.resource(at: Graph.url("/a")).get()
        _ = try await manager.resource(at: Graph.url("/b")).get()
        _ = try await manager.resource(at: Graph.url("/a")).get()  // used: b is now the oldest
        _ = try await manager.resource(at: Graph.url("/c")).get()
        #expect(store.count == 2)
        #expect(store.totalBytes <= 3_000)
        #expect(await manager.resource(at: Graph.url("/a")).current != nil)
        #expect(await manager.resource(at: Graph.url("/b")).current == nil)
        #expect(await manager.resource(at: Graph.url("/c")).current != nil)
        store.removeAll()
        #expect(store.count == 0 && store.totalBytes == 0)
    }

    /// A new state that grows the lists embedding it grows them in the store too: the store
    /// still ends within its bound, the least recently used states going first.
    @Test func aNewStateThatGrowsItsEmbeddersKeepsTheStoreWithinItsBound() async throws {
        let api = ScriptedAPI()
        let item = Graph.resource("/orders/1", ["status": "open"])
        await api.serve("/orders/1", item)
        for list in ["/a", "/b", "/c"] {
            await api.serve(list, Graph.resource(list, embedded: ["item": [item]]))
        }
        await api.answerWrites(
            "/orders/1", withNewState: ["status": .string(String(repeating: "paid ", count: 400))])
        let store = ResourceStore(maximumBytes: 4_000)
        let manager = await stateManager(api, store: store)
        for path in ["/a", "/b", "/c", "/orders/1"] { _ = try await manager.resource(at: Graph.url(path)).get() }
        #expect(store.totalBytes <= 4_000)
        _ = try await manager.resource(at: Graph.url("/orders/1")).patch(.json(["status": "paid"]))
        #expect(store.totalBytes <= store.maximumBytes, "every list embedding the item grew by 2 KB")
        let current = await manager.resource(at: Graph.url("/orders/1")).current
        #expect(current?.resource.state["status"]?.stringValue?.count == 2_000, "the new state itself stays")
    }

    @Test func aSecondTraversalOverFreshStateSendsNoRequest() async throws {
        let requester = await Graph.contacts()
        let log = EventLog()
        var configuration = ResourceManager.Configuration()
        configuration.store = ResourceStore(defaultFreshness: .seconds(600))
        configuration.observer = log.observer
        let manager = ResourceManager(requester: requester, configuration: configuration)
        let first = try await manager.resource(from: Graph.url("/contacts/1"), includes: ["[contacts].website"])
        let sent = await requester.requestCount
        #expect(sent == 5)
        let second = try await manager.resource(from: Graph.url("/contacts/1"), includes: ["[contacts].website"])
        #expect(second == first)
        #expect(await requester.requestCount == sent, "every resource came from the store")
        #expect(log.all.contains { if case .stateUsed = $0 { true } else { false } })
        #expect(await manager.resource(at: Graph.url("/websites/2")).current?.resource.state["id"] == "w2")
    }
}

/// Typed requests keep state too.
@Suite struct TypedRequestStateTests {
    @Test func aSecondTypedRequestOverFreshStateSendsNoRequest() async throws {
        var configuration = ResourceManager.Configuration()
        configuration.store = ResourceStore(defaultFreshness: .seconds(600))
        let (manager, requester) = TypedFixtures.manager("links-only", configuration: configuration)
        let request = HalleyRequest<Contact>(
            url: "https://api.example.com/contacts/1", includeType: .contactsAndWebsiteOfContacts)
        let first = try await manager.request(request)
        let sent = await requester.paths.count
        #expect(sent == 6)
        let second = try await manager.request(request)
        #expect(second.contacts?.map(\.id) == first.contacts?.map(\.id))
        #expect(second.website?.id == "w1")
        #expect(await requester.paths.count == sent, "every resource came from the store")
    }
}
