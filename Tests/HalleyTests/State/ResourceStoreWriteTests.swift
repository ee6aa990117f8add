import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Writes and the server's signals: the one invalidation rule, new states from
/// `Content-Location`, deletion, `If-Match`, `Prefer`, origins.
@Suite struct ResourceStoreWriteTests {
    /// `/orders/1` (ETag "1"), embedded in `/orders`, named by `/summary`'s `inv-by` link, which
    /// `/report`'s `inv-by` names in turn (and `/report` names `/summary` back: a cycle).
    private func orders() async -> ScriptedAPI {
        let api = ScriptedAPI()
        await api.serve(
            "/orders/1", Graph.resource("/orders/1", ["status": "open"]),
            headers: ["Cache-Control": "max-age=60", "ETag": "\"1\""])
        await api.serve(
            "/orders", Graph.resource("/orders", embedded: ["item": [Graph.resource("/orders/1", ["status": "open"])]]))
        await api.serve("/summary", Graph.resource("/summary", links: ["inv-by": Graph.link("/orders/1")], ["n": 1]))
        await api.serve(
            "/report",
            Graph.resource("/report", links: ["inv-by": .array([Graph.link("/summary"), Graph.link("/report")])]))
        await api.serve("/other", Graph.resource("/other"))
        return api
    }

    private func load(
        _ manager: ResourceManager, _ paths: [String] = ["/orders", "/orders/1", "/summary", "/report", "/other"]
    )
        async throws
    {
        for path in paths { _ = try await manager.resource(at: Graph.url(path)).get() }
    }

    private func isStale(_ manager: ResourceManager, _ path: String, options: CallOptions = CallOptions()) async
        -> Bool?
    {
        await manager.resource(at: Graph.url(path), options: options).current?.isStale
    }

    @Test func aSuccessfulWriteMakesItsTargetAndWhatDependsOnItStale() async throws {
        let api = await orders()
        await api.answerWrites("/orders/1")
        let manager = await stateManager(api)
        try await load(manager)
        _ = try await manager.resource(at: Graph.url("/orders/1")).patch(.json(["status": "paid"]))
        #expect(await isStale(manager, "/orders/1") == true, "the target")
        #expect(await isStale(manager, "/orders") == true, "embeds it")
        #expect(await isStale(manager, "/summary") == true, "inv-by the target")
        #expect(await isStale(manager, "/report") == true, "inv-by /summary, transitively (and itself: a cycle)")
        #expect(await isStale(manager, "/other") == false)
    }

    @Test func locationAndInvalidatesLinksAreStaleAndOtherOriginsAreIgnoredWithAnEvent() async throws {
        let api = await orders()
        await api.answerWrites(
            "/orders",
            status: 201,
            headers: [
                "Location": "/orders/1",
                "Link": "</other>; rel=\"invalidates\", <https://evil.example/x>; rel=invalidates",
            ])
        await api.serve("https://evil.example/x", Graph.resource("https://evil.example/x"))
        let log = EventLog()
        let manager = await stateManager(api, observer: log.observer)
        try await load(manager, ["/orders/1", "/other"])
        let evil = manager.resource(at: URL(string: "https://evil.example/x")!)
        _ = try await evil.get()
        _ = try await manager.resource(at: Graph.url("/orders")).post(.json(["status": "new"]))
        #expect(await isStale(manager, "/orders/1") == true, "Location")
        #expect(await isStale(manager, "/other") == true, "invalidates")
        #expect(await evil.current?.isStale == false, "a server cannot erase another origin's state")
        let ignored = log.all.compactMap { event -> String? in
            if case .responseHeaderIgnored(_, let field, let value, _) = event { return "\(field) \(value)" }
            return nil
        }
        #expect(ignored == ["Link https://evil.example/x"])
    }

    @Test func contentLocationEqualToTheTargetIsTheNewStateWithOneUpdatedAndNoRefetch() async throws {
        let api = await orders()
        await api.answerWrites(
            "/orders/1", status: 200,
            headers: ["Content-Location": Graph.base + "/orders/1", "ETag": "\"2\"", "Cache-Control": "max-age=60"],
            json: Graph.resource("/orders/1", ["status": "paid"]))
        let manager = await stateManager(api)
        try await load(manager)
        let order = manager.resource(at: Graph.url("/orders/1"))
        var events = order.events.makeAsyncIterator()
        #expect(await events.next()?.state?.resource.state["status"] == "open", "the stored state first")
        await api.requester.resetCounts()
        _ = try await order.put(.json(["status": "paid"]), options: WriteOptions(preferRepresentation: true))
        let put = try #require(await api.requester.requests.last)
        #expect(put.headers["Prefer"] == "return=representation")
        #expect(put.headers["If-Match"] == nil)
        let event = try #require(await events.next())
        #expect(event.kind == "updated", "no stale before the new state")
        #expect(event.state?.resource.state["status"] == "paid")
        #expect(event.state?.etag == "\"2\"")
        let state = try await order.get()
        #expect(state.resource.state["status"] == "paid" && !state.isStale)
        #expect(await api.requester.requestCount == 1, "the write only: no refetch")
        #expect(await isStale(manager, "/summary") == true, "what the change invalidates is stale")
        // Nothing else was pending: the next event is the deletion's.
        await api.answerWrites("/orders/1")
        _ = try await order.delete()
        #expect(await events.next() == .deleted)
    }

    @Test func preferIsNeverSentByDefault() async throws {
        let api = await orders()
        await api.answerWrites("/orders/1")
        let manager = await stateManager(api)
        _ = try await manager.resource(at: Graph.url("/orders/1")).put(.json([:]))
        #expect(await api.requester.requests.last?.headers["Prefer"] == nil)
    }

    @Test func a201WhoseContentLocationIsItsLocationStoresTheCreatedResource() async throws {
        let api = await orders()
        await api.answerWrites(
            "/orders", status: 201,
            headers: ["Location": "/orders/2", "Content-Location": "/orders/2", "Cache-Control": "max-age=60"],
            json: Graph.resource("/orders/2", ["status": "new"]))
        let manager = await stateManager(api)
        try await load(manager, ["/orders"])
        _ = try await manager.resource(at: Graph.url("/orders")).post(.json(["status": "new"]))
        #expect(await isStale(manager, "/orders") == true)
        await api.requester.resetCounts()
        #expect(try await manager.resource(at: Graph.url("/orders/2")).get().resource.state["status"] == "new")
        #expect(await api.requester.requestCount == 0)
    }

    @Test func aContentLocationThatDoesNotParseIsIgnoredWithAnEvent() async throws {
        let api = await orders()
        await api.answerWrites(
            "/orders/1", status: 200, headers: ["Content-Location": "http://[bad"],
            json: Graph.resource("/orders/1", ["status": "paid"]))
        let log = EventLog()
        let manager = await stateManager(api, observer: log.observer)
        try await load(manager, ["/orders/1"])
        let response = try await manager.resource(at: Graph.url("/orders/1")).put(.json([:]))
        #expect(response.status == 200)
        #expect(await isStale(manager, "/orders/1") == true, "no new state: the target is stale")
        #expect(
            log.all.contains {
                if case .responseHeaderIgnored(_, "Content-Location", "http://[bad", _) = $0 { true } else { false }
            })
    }

    @Test func deleteRemovesEveryScopesStateAndTellsObservers() async throws {
        let api = await orders()
        await api.answerWrites("/orders/1")
        let store = ResourceStore()
        let manager = await stateManager(api, store: store)
        let alice = manager.resource(at: Graph.url("/orders/1"), options: user("alice"))
        let bob = manager.resource(at: Graph.url("/orders/1"), options: user("bob"))
        _ = try await alice.get()
        _ = try await bob.get()
        var bobsEvents = bob.events.makeAsyncIterator()
        #expect(await bobsEvents.next()?.kind == "updated")
        _ = try await alice.delete()
        #expect(await bobsEvents.next() == .deleted)
        #expect(await alice.current == nil)
        #expect(await bob.current == nil)
        #expect(store.count == 0)
    }

    @Test func aWriteInvalidatesForEveryScopeButItsNewStateStaysWithTheWriter() async throws {
        let api = await orders()
        await api.answerWrites(
            "/orders/1", status: 200, headers: ["Content-Location": "/orders/1", "Cache-Control": "max-age=60"],
            json: Graph.resource("/orders/1", ["status": "alice's"]))
        let manager = await stateManager(api)
        let alice = manager.resource(at: Graph.url("/orders/1"), options: user("alice"))
        let bob = manager.resource(at: Graph.url("/orders/1"), options: user("bob"))
        _ = try await alice.get()
        _ = try await bob.get()
        _ = try await alice.put(.json([:]))
        #expect(await alice.current?.resource.state["status"] == "alice's")
        #expect(await alice.current?.isStale == false)
        let bobs = try #require(await bob.current)
        #expect(bobs.resource.state["status"] == "open", "never another scope's state")
        #expect(bobs.isStale)
    }

    @Test func ifMatchSendsTheStoredETagAndA412MakesTheStateStale() async throws {
        let api = await orders()
        await api.answerWrites("/orders/1", status: 412)
        let manager = await stateManager(api)
        let order = manager.resource(at: Graph.url("/orders/1"))
        _ = try await order.get()
        await #expect(throws: HalleyError.self) {
            try await order.put(.json([:]), options: WriteOptions(ifMatch: true))
        }
        #expect(await api.requester.requests.last?.headers["If-Match"] == "\"1\"")
        #expect(await order.current?.isStale == true)
        let unknown = manager.resource(at: Graph.url("/orders/9"))
        let error = await #expect(throws: HalleyError.self) {
            try await unknown.put(.json([:]), options: WriteOptions(ifMatch: true))
        }
        #expect(error?.code == .missingValidator)
        #expect(await api.requester.count(for: Graph.base + "/orders/9") == 0, "nothing was sent")
    }

    @Test func theResponseCacheFollowsTheSameRule() async throws {
        let api = await orders()
        await api.answerWrites(
            "/orders", status: 201,
            headers: ["Location": "https://evil.example/x", "Link": "</other>; rel=\"invalidates\""])
        await api.serve("https://evil.example/x", Graph.resource("https://evil.example/x"))
        let cache = ResponseCache()
        var configuration = ResourceManager.Configuration()
        configuration.cache = cache
        let manager = ResourceManager(requester: api.requester, configuration: configuration)
        _ = try await manager.document(at: Graph.url("/other"))
        _ = try await manager.document(at: URL(string: "https://evil.example/x")!)
        #expect(cache.count == 2)
        _ = try await manager.send(.post, to: Graph.url("/orders"))
        #expect(cache.lookup(ResourceRequest(url: Graph.url("/other"))) == nil, "invalidates")
        #expect(
            cache.lookup(ResourceRequest(url: URL(string: "https://evil.example/x")!)) != nil,
            "another origin's Location erases nothing")
    }
}
