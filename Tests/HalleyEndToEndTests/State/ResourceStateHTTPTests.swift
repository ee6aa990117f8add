import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// The state layer over loopback HTTP with a real server (`/scripted/...` routes of
/// `hal_test_server.py`): invalidation sources, `Content-Location`, seeding, freshness,
/// origins, scopes, events, the bound, shared gets and traversals over fresh state.
@Suite struct ResourceStateHTTPTests {
    /// One test's corner of the shared server.
    struct API {
        let server: TestServer
        let marker = "state-\(UUID().uuidString.prefix(8))"

        func path(_ name: String) -> String { "/scripted/\(marker)/\(name)" }
        func url(_ name: String) -> URL { server.url(path(name)) }

        func document(_ name: String, links: JSONObject = [:], embedded: JSONObject? = nil, _ state: JSONObject = [:])
            -> JSONValue
        {
            var linkObject: JSONObject = ["self": ["href": .string(path(name))]]
            for (key, value) in links.members { linkObject[key] = value }
            var object: JSONObject = ["_links": .object(linkObject)]
            for (key, value) in state.members { object[key] = value }
            if let embedded { object["_embedded"] = .object(embedded) }
            return .object(object)
        }

        func link(_ name: String) -> JSONValue { ["href": .string(path(name))] }

        func serve(_ name: String, _ body: JSONValue, headers: [(String, String)] = [("Cache-Control", "max-age=60")])
            async throws
        {
            try await server.script("GET", path(name), headers: headers, body: body)
        }

        func answer(
            _ method: String, _ name: String, status: Int = 204, headers: [(String, String)] = [],
            body: JSONValue? = nil
        ) async throws {
            try await server.script(method, path(name), status: status, headers: headers, body: body)
        }

        /// The requests `name` received (all of this test's paths when `nil`).
        func requests(_ name: String? = nil) async throws -> [RecordedRequest] {
            let all = try await server.requests(containing: "/scripted/\(marker)/")
            guard let name else { return all }
            return all.filter { $0.path == path(name) }
        }
    }

    private func manager(
        _ transport: Transport = .curl, store: ResourceStore = ResourceStore(), observer: TraversalObserver? = nil
    ) throws -> ResourceManager {
        try StateManagers.make(transport, store: store, observer: observer)
    }

    private func bearer(_ token: String) -> CallOptions {
        StateManagers.headers(["Authorization": "Bearer \(token)"])
    }

    @Test(arguments: Transport.allCases)
    func overHTTPEveryInvalidationSourceMakesItsStateStale(transport: Transport) async throws {
        let api = API(server: try await TestServer.shared())
        for name in ["target", "located", "named", "also-named", "plain"] {
            try await api.serve(name, api.document(name))
        }
        try await api.serve("dependent", api.document("dependent", links: ["inv-by": api.link("named")]))
        try await api.serve(
            "container", api.document("container", embedded: ["item": api.document("dependent")]))
        try await api.answer(
            "POST", "target", status: 201,
            headers: [
                ("Location", api.path("located")),
                ("Link", "<\(api.path("named"))>; rel=\"invalidates\""),
                ("Link", "<\(api.path("also-named"))>; rel=\"invalidates\""),
            ])
        let manager = try manager(transport)
        let names = ["target", "located", "named", "also-named", "plain", "dependent", "container"]
        for name in names { _ = try await manager.resource(at: api.url(name)).get() }
        _ = try await manager.resource(at: api.url("target")).post(.json(["n": 1]))
        var stale: [String] = []
        for name in names where await manager.resource(at: api.url(name)).current?.isStale == true {
            stale.append(name)
        }
        #expect(stale == ["target", "located", "named", "also-named", "dependent", "container"])
    }

    @Test func overHTTPAnotherOriginsStateIsNeverPlantedOrErased() async throws {
        let api = API(server: try await TestServer.shared())
        let other = API(server: try await TestServer.secondary())
        try await other.serve("victim", other.document("victim", ["v": "original"]))
        try await api.serve("target", api.document("target"))
        let victim = other.url("victim").absoluteString
        try await api.answer(
            "PUT", "target", status: 200,
            headers: [("Location", victim), ("Link", "<\(victim)>; rel=invalidates"), ("Content-Location", victim)],
            body: other.document("victim", ["v": "planted"]))
        let log = EventLog()
        let manager = try manager(observer: log.observer)
        let victimHandle = manager.resource(at: other.url("victim"))
        _ = try await victimHandle.get()
        _ = try await manager.resource(at: api.url("target")).put(.json([:]))
        let state = try #require(await victimHandle.current)
        #expect(state.resource.state["v"] == "original")
        #expect(!state.isStale)
        let ignored = log.all.compactMap { event -> String? in
            if case .responseHeaderIgnored(_, let field, _, _) = event { return field }
            return nil
        }
        #expect(Set(ignored) == ["Location", "Link", "Content-Location"])
    }

    @Test(arguments: Transport.allCases)
    func overHTTPContentLocationIsTheNewStateWithOneUpdatedNoStaleAndNoRefetch(transport: Transport) async throws {
        let api = API(server: try await TestServer.shared())
        try await api.serve(
            "order", api.document("order", ["status": "open"]),
            headers: [("Cache-Control", "max-age=60"), ("ETag", "\"1\"")])
        try await api.serve(
            "orders", api.document("orders", embedded: ["item": [api.document("order", ["status": "open"])]]))
        try await api.answer(
            "PUT", "order", status: 200,
            headers: [("Content-Location", api.path("order")), ("ETag", "\"2\""), ("Cache-Control", "max-age=60")],
            body: api.document("order", ["status": "paid"]))
        let manager = try manager(transport)
        let order = manager.resource(at: api.url("order"))
        let list = manager.resource(at: api.url("orders"))
        // The order first: the list's embedded copy (no ETag) never replaces it.
        _ = try await order.get()
        _ = try await list.get()
        var orderEvents = order.events.makeAsyncIterator()
        var listEvents = list.events.makeAsyncIterator()
        _ = await orderEvents.next()
        _ = await listEvents.next()
        _ = try await order.put(
            .json(["status": "paid"]), options: WriteOptions(ifMatch: true, preferRepresentation: true))
        let put = try #require(try await api.requests("order").last)
        #expect(put.method == "PUT")
        #expect(put.headers["if-match"] == "\"1\"")
        #expect(put.headers["prefer"] == "return=representation")
        guard case .updated(let state)? = await orderEvents.next() else {
            Issue.record("the first event after the write is not updated")
            return
        }
        #expect(state.resource.state["status"] == "paid" && state.etag == "\"2\"")
        // The collection hears of its item once the item's new state is stored.
        guard case .updated? = await listEvents.next() else {
            Issue.record("the collection did not update")
            return
        }
        #expect(await order.current?.resource.state["status"] == "paid")
        #expect(try await order.get().resource.state["status"] == "paid")
        #expect(try await api.requests("order").filter { $0.method == "GET" }.count == 1, "no refetch")
        try await api.answer("DELETE", "order")
        _ = try await order.delete()
        #expect(await orderEvents.next() == .deleted, "nothing else (no stale) came between")
    }

    @Test func overHTTPAnEmbeddedCopyNeverReplacesTheFetchedState() async throws {
        let api = API(server: try await TestServer.shared())
        try await api.serve("item", api.document("item", ["n": 1, "detail": "full"]))
        try await api.serve("partial", api.document("partial", embedded: ["item": api.document("item", ["n": 1])]))
        try await api.serve("newer", api.document("newer", embedded: ["item": api.document("item", ["n": 2])]))
        let manager = try manager()
        let item = manager.resource(at: api.url("item"))
        _ = try await item.get()
        _ = try await manager.resource(at: api.url("partial")).get()
        #expect(await item.current?.resource.state["detail"] == "full")
        #expect(await item.current?.isStale == false)
        _ = try await manager.resource(at: api.url("newer")).get()
        #expect(await item.current?.resource.state["detail"] == "full")
        #expect(await item.current?.isStale == true)
    }

    @Test func overHTTPFreshnessFollowsCacheControl() async throws {
        let api = API(server: try await TestServer.shared())
        try await api.serve("max-age", api.document("max-age"), headers: [("Cache-Control", "max-age=60")])
        try await api.serve("no-store", api.document("no-store"), headers: [("Cache-Control", "no-store")])
        try await api.serve(
            "no-cache", api.document("no-cache"), headers: [("Cache-Control", "no-cache"), ("ETag", "\"e\"")])
        let manager = try manager()
        for name in ["max-age", "no-store", "no-cache"] {
            _ = try await manager.resource(at: api.url(name)).get()
            _ = try await manager.resource(at: api.url(name)).get()
        }
        #expect(try await api.requests("max-age").count == 1)
        #expect(try await api.requests("no-store").count == 2)
        let revalidations = try await api.requests("no-cache")
        #expect(revalidations.count == 2)
        #expect(revalidations.last?.headers["if-none-match"] == "\"e\"")
        #expect(await manager.resource(at: api.url("no-store")).current == nil)
    }

    @Test func overHTTPTwoCredentialScopesAreIsolated() async throws {
        let api = API(server: try await TestServer.shared())
        try await api.serve("me", api.document("me", ["v": 1]))
        let manager = try manager()
        let alice = manager.resource(at: api.url("me"), options: bearer("alice"))
        let bob = manager.resource(at: api.url("me"), options: bearer("bob"))
        _ = try await alice.get()
        #expect(await bob.current == nil)
        _ = try await bob.get()
        _ = try await alice.get()
        let requests = try await api.requests("me")
        #expect(requests.map { $0.headers["authorization"] } == ["Bearer alice", "Bearer bob"])
    }

    @Test func overHTTPACancelledConsumerEndsAndLeavesNothingRegistered() async throws {
        let api = API(server: try await TestServer.shared())
        try await api.serve("a", api.document("a"))
        let store = ResourceStore()
        let handle = try manager(store: store).resource(at: api.url("a"))
        _ = try await handle.get()
        let started = AsyncStream<Void>.makeStream()
        let consumer = Task {
            for await _ in handle.events { started.continuation.yield() }
            return true
        }
        for await _ in started.stream { break }
        consumer.cancel()
        #expect(await consumer.value)
        #expect(store.subscriberCount == 0)
    }

    @Test func overHTTPTheStoreStaysWithinItsBound() async throws {
        let api = API(server: try await TestServer.shared())
        let padding = JSONValue.string(String(repeating: "x", count: 2_000))
        for index in 0..<10 { try await api.serve("\(index)", api.document("\(index)", ["pad": padding])) }
        let store = ResourceStore(maximumBytes: 10_000)
        let manager = try manager(store: store)
        for index in 0..<10 { _ = try await manager.resource(at: api.url("\(index)")).get() }
        #expect(store.totalBytes <= 10_000)
        #expect(store.count < 10)
        #expect(await manager.resource(at: api.url("9")).current != nil, "the newest stays")
        #expect(await manager.resource(at: api.url("0")).current == nil, "the oldest went first")
    }

    @Test func overHTTPConcurrentGetsShareOneRequest() async throws {
        let server = try await TestServer.shared()
        let marker = "state-shared-\(UUID().uuidString.prefix(8))"
        let url = server.url("/slow?ms=300&to=\(marker)")
        let handle = try manager().resource(at: url)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 { group.addTask { _ = try await handle.get() } }
            try await group.waitForAll()
        }
        #expect(try await server.requests(containing: marker).count == 1)
    }

    @Test func overHTTPASecondTraversalOverFreshStateSendsNoRequest() async throws {
        let api = API(server: try await TestServer.shared())
        let items = (0..<20).map { api.link("item-\($0)") }
        try await api.serve("root", api.document("root", links: ["item": .array(items)]))
        for index in 0..<20 { try await api.serve("item-\(index)", api.document("item-\(index)", ["n": .int(index)])) }
        let manager = try manager()
        let first = try await manager.resource(from: api.url("root"), includes: ["[item]"])
        #expect(try await api.requests().count == 21)
        let second = try await manager.resource(from: api.url("root"), includes: ["[item]"])
        #expect(second == first)
        #expect(try await api.requests().count == 21, "the second pass sent nothing")
    }
}
