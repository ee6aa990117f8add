import Foundation
import HalleyTestSupport
import HalleyTesting
import Testing

@testable import Halley

/// Issue 38's state rules over loopback HTTP, against `HalleyTesting`'s socket server: `Vary`,
/// cancelling one waiter of a shared get, stored states that are exactly what a server sent,
/// linked items, `Preference-Applied`, partial embedded copies, subscriptions that miss
/// nothing, and `Link` problems of a response with no document.
@Suite struct ResourceStateRulesHTTPTests {
    private static func manager(
        _ transport: Transport = .curl, store: ResourceStore = ResourceStore(), observer: TraversalObserver? = nil
    ) throws -> ResourceManager {
        try StateManagers.make(transport, store: store, observer: observer)
    }

    private static func headers(_ fields: HeaderFields) -> CallOptions { StateManagers.headers(fields) }

    /// The next event, or `nil` when none comes within `limit` (a test that would otherwise
    /// wait forever on the old code fails instead).
    private static func next(
        _ iterator: inout ResourceEvents.Iterator, within limit: Duration = .seconds(5)
    ) async -> ResourceEvent? {
        let start = iterator
        let (event, moved) = await withTaskGroup(of: (ResourceEvent?, ResourceEvents.Iterator?).self) { group in
            group.addTask {
                var running = start
                let event = await running.next()
                return (event, running)
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return (nil, nil)
            }
            let first = await group.next() ?? (nil, nil)
            group.cancelAll()
            return first
        }
        if let moved { iterator = moved }
        return event
    }

    /// Waits until `path` has received a request: a bound against a hang, not a speed check.
    private static func untilArrived(_ path: String, at api: StubAPI) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while api.requests(to: path).isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        try #require(!api.requests(to: path).isEmpty, "the request never reached the server")
    }

    // MARK: 1. Vary

    @Test(arguments: Transport.allCases)
    func twoLanguagesOfOneURLAreTwoStatesAndNeverShareARequest(transport: Transport) async throws {
        let api = StubAPI()
        api.handle(.get, "/greeting") { request in
            let french = request.headers["Accept-Language"] == "fr"
            return .json(
                StubResource(["text": .string(french ? "bonjour" : "hello")], selfLink: "/greeting").json(),
                headers: ["Vary": "Accept-Language", "Cache-Control": "max-age=60"])
        }
        api.latency("/greeting", .milliseconds(200))
        let server = try api.serve()
        let manager = try Self.manager(transport)
        let english = manager.resource(at: server.url("/greeting"), options: Self.headers(["Accept-Language": "en"]))
        let french = manager.resource(at: server.url("/greeting"), options: Self.headers(["Accept-Language": "fr"]))
        async let first = english.get()
        async let second = french.get()
        let (en, fr) = try await (first, second)
        #expect(en.resource.state["text"] == "hello")
        #expect(fr.resource.state["text"] == "bonjour", "the fr get did not join the en request")
        #expect(api.requests(to: "/greeting").count == 2)
        // Fresh, each its own: no request, and never the other language.
        #expect(try await french.get().resource.state["text"] == "bonjour")
        #expect(try await english.get().resource.state["text"] == "hello")
        #expect(api.requests(to: "/greeting").count == 2)
        // A third language is a state of its own too.
        let german = manager.resource(at: server.url("/greeting"), options: Self.headers(["Accept-Language": "de"]))
        #expect(await german.current == nil)
    }

    // MARK: 2. Cancelling one waiter

    /// `/slow` on an API whose first answer waits until the test opens `gate` (or 60 s pass,
    /// so no server thread outlives a failed test for long): the request is still in flight,
    /// however slow the machine, when the test cancels its waiters.
    private static func gatedAPI(_ gate: DispatchSemaphore) -> StubAPI {
        let api = StubAPI()
        let answered = Locked(0)
        api.handle(.get, "/slow") { _ in
            let first = answered.withLock { count -> Bool in
                count += 1
                return count == 1
            }
            if first { _ = gate.wait(timeout: .now() + 60) }
            return .json(StubResource(["v": 1], selfLink: "/slow").json(), headers: ["Cache-Control": "max-age=60"])
        }
        return api
    }

    @Test func aCancelledWaiterEndsAtOnceWhileTheOtherGetsTheState() async throws {
        let gate = DispatchSemaphore(value: 0)
        defer { gate.signal() }
        let api = Self.gatedAPI(gate)
        let server = try api.serve()
        let handle = try Self.manager().resource(at: server.url("/slow"))
        let order = Locked<[String]>([])
        let cancelled = Task {
            do {
                _ = try await handle.get()
                order.withLock { $0.append("first: state") }
            } catch is CancellationError {
                order.withLock { $0.append("first: cancelled") }
            } catch {
                order.withLock { $0.append("first: \(error)") }
            }
        }
        let waiting = Task {
            let state = try await handle.get()
            order.withLock { $0.append("second: state") }
            return state
        }
        // Both wait on the one request once it has reached the server.
        try await Self.untilArrived("/slow", at: api)
        cancelled.cancel()
        // On the old code the cancelled waiter waited for the answer: the gate opens after 30 s
        // at the latest, so that failure is a wrong order, not a hang.
        let opener = Task {
            try? await Task.sleep(for: .seconds(30))
            gate.signal()
        }
        await cancelled.value
        gate.signal()
        opener.cancel()
        #expect(try await waiting.value.resource.state["v"] == 1)
        #expect(order.get() == ["first: cancelled", "second: state"])
        #expect(api.requests(to: "/slow").count == 1, "the shared request went on for the second")
    }

    @Test func theSharedRequestIsCancelledWhenNoWaiterIsLeft() async throws {
        let gate = DispatchSemaphore(value: 0)
        defer { gate.signal() }
        let api = Self.gatedAPI(gate)
        let server = try api.serve()
        let handle = try Self.manager().resource(at: server.url("/slow"))
        let waiters = (0..<2).map { _ in Task { try await handle.get() } }
        try await Self.untilArrived("/slow", at: api)
        for waiter in waiters { waiter.cancel() }
        for waiter in waiters {
            await #expect(throws: CancellationError.self) { _ = try await waiter.value }
        }
        // The first answer is still held back: a get that joined the cancelled request would wait
        // for it; one of its own is answered at once.
        #expect(try await handle.get().resource.state["v"] == 1)
        #expect(api.requests(to: "/slow").count == 2)
    }

    // MARK: 3. Only what a server sent

    private static func dashboardAPI(customerETag: String? = nil) -> StubAPI {
        let api = StubAPI()
        let lastOrder = StubResource(["total": 12], selfLink: "/orders/5")
        let partial = StubResource(["name": "Ann"], selfLink: "/customers/2").embedding("lastOrder", lastOrder)
        api.resource(
            "/dashboard", StubResource(["title": "Today"]).embedding("featured", partial),
            headers: ["Cache-Control": "max-age=60", "ETag": "\"d1\""])
        let full = StubResource(["name": "Ann B.", "email": "ann@example.test"], selfLink: "/customers/2")
        api.respond(
            to: .put, "/customers/2",
            with: .json(full.json(), headers: ["Content-Location": "/customers/2", "ETag": "\"c2\""]))
        return api
    }

    @Test func aDocumentEmbeddingAnOutdatedCopyGoesStaleAndIsNeverRewritten() async throws {
        let api = Self.dashboardAPI()
        let server = try api.serve()
        let manager = try Self.manager()
        let dashboard = manager.resource(at: server.url("/dashboard"))
        let sent = try await dashboard.get()
        var events = dashboard.events.makeAsyncIterator()
        #expect(await Self.next(&events)?.state == sent)
        _ = try await manager.resource(at: server.url("/customers/2")).put(.json(["name": "Ann B."]))
        #expect(await Self.next(&events) == .stale, "one stale, no rewritten updated")
        let held = try #require(await dashboard.current)
        #expect(held.isStale)
        #expect(held.resource == sent.resource, "the stored body is the one the server sent")
        #expect(held.resource.embedded.resource(for: "featured")?.embedded.resource(for: "lastOrder") != nil)
        // Stale: the next get asks the server again, and shows what it says.
        let again = try await dashboard.get()
        #expect(api.requests(to: "/dashboard").count == 2)
        #expect(again.resource.embedded.resource(for: "featured")?.state["name"] == "Ann")
    }

    @Test func aNestedCopyOutdatesItsDocumentWithOneStale() async throws {
        let api = Self.dashboardAPI()
        api.respond(
            to: .patch, "/orders/5",
            with: .json(
                StubResource(["total": 20], selfLink: "/orders/5").json(), headers: ["Content-Location": "/orders/5"]))
        let server = try api.serve()
        let manager = try Self.manager()
        let dashboard = manager.resource(at: server.url("/dashboard"))
        _ = try await dashboard.get()
        var events = dashboard.events.makeAsyncIterator()
        _ = await Self.next(&events)
        _ = try await manager.resource(at: server.url("/orders/5")).patch(.json(["total": 20]))
        #expect(await Self.next(&events) == .stale)
        #expect(await Self.next(&events, within: .milliseconds(300)) == nil, "one stale only")
        #expect(
            await dashboard.current?.resource.embedded.resource(for: "featured")?.embedded.resource(for: "lastOrder")?
                .state["total"] == 12)
    }

    // MARK: 4. Linked items

    @Test func aPageThatLinksItsItemsHearsWhenOneGetsANewState() async throws {
        let api = StubAPI()
        let version = Locked(1)
        api.resource(
            "/orders", StubResource().links("item", ["/orders/3", "/orders/4"]),
            headers: ["Cache-Control": "max-age=60"])
        api.handle(.get, "/orders/4") { _ in
            .json(
                StubResource(["v": .int(version.get())], selfLink: "/orders/4").json(),
                headers: ["Cache-Control": "no-cache"])
        }
        let server = try api.serve()
        let manager = try Self.manager()
        let page = manager.resource(at: server.url("/orders"))
        let order = manager.resource(at: server.url("/orders/4"))
        _ = try await page.get()
        _ = try await order.get()
        var pageEvents = page.events.makeAsyncIterator()
        var orderEvents = order.events.makeAsyncIterator()
        _ = await Self.next(&pageEvents)
        _ = await Self.next(&orderEvents)
        version.set(2)  // another client's edit
        _ = try await order.refresh()
        #expect(await Self.next(&orderEvents)?.state?.resource.state["v"] == 2)
        guard case .updated? = await Self.next(&pageEvents) else {
            Issue.record("the page that links /orders/4 heard nothing")
            return
        }
    }

    // MARK: 5. Preference-Applied

    @Test(arguments: [true, false])
    func aRepresentationTheServerSaysItAppliedIsTheNewState(applied: Bool) async throws {
        let api = StubAPI()
        api.resource(
            "/orders/1", StubResource(["status": "open"]), headers: ["Cache-Control": "max-age=60", "ETag": "\"1\""])
        var answer: HeaderFields = ["ETag": "\"2\"", "Cache-Control": "max-age=60"]
        if applied { answer["Preference-Applied"] = "return=representation" }
        api.respond(
            to: .patch, "/orders/1",
            with: .json(StubResource(["status": "paid"], selfLink: "/orders/1").json(), headers: answer))
        let server = try api.serve()
        let manager = try Self.manager()
        let order = manager.resource(at: server.url("/orders/1"))
        _ = try await order.get()
        var events = order.events.makeAsyncIterator()
        _ = await Self.next(&events)
        _ = try await order.patch(.json(["status": "paid"]), options: WriteOptions(preferRepresentation: true))
        if applied {
            let event = await Self.next(&events)
            #expect(
                event?.state?.resource.state["status"] == "paid" && event?.state?.etag == "\"2\"",
                "one updated, no stale")
            #expect(try await order.get().resource.state["status"] == "paid")
            #expect(api.requests(to: "/orders/1", method: .get).count == 1, "no refetch")
        } else {
            // Without the server's word, the body may be anything: today's rule stands.
            #expect(await Self.next(&events) == .stale)
        }
    }

    // MARK: 6. Partial embedded copies

    struct Order: Decodable, Sendable {
        let status: String
        let total: Double
    }

    private static func summariesAPI() -> StubAPI {
        let api = StubAPI()
        api.resource(
            "/dashboard",
            StubResource().embedding("orders", [StubResource(["id": 1, "status": "open"], selfLink: "/orders/1")]),
            headers: ["Cache-Control": "max-age=60"])
        api.resource("/orders/1", StubResource(["id": 1, "status": "open", "total": 42.5]))
        return api
    }

    @Test func aTypedGetOfAPartialCopyFetchesTheResourceOnce() async throws {
        let api = Self.summariesAPI()
        let server = try api.serve()
        let manager = try Self.manager()
        _ = try await manager.resource(at: server.url("/dashboard")).get()
        let order = try await manager.resource(at: server.url("/orders/1")).get(Order.self)
        #expect(order.total == 42.5)
        #expect(api.requests(to: "/orders/1").count == 1)
    }

    @MainActor @Test func aModelOverAPartialCopyShowsTheResourceNotAnError() async throws {
        let api = Self.summariesAPI()
        let server = try api.serve()
        let manager = try Self.manager()
        _ = try await manager.resource(at: server.url("/dashboard")).get()
        let model = ResourceModel(manager.resource(at: server.url("/orders/1")), as: Order.self)
        await model.load()
        #expect(model.value?.total == 42.5)
        #expect(model.error == nil)
        #expect(api.requests(to: "/orders/1").count == 1)
    }

    @Test func aStoreToldCopiesArePartialShowsTheCopyButGetFetches() async throws {
        let api = Self.summariesAPI()
        let server = try api.serve()
        let store = ResourceStore(maximumBytes: 1_000_000, defaultFreshness: .zero, embeddedCopiesAreComplete: false)
        let manager = try Self.manager(store: store)
        _ = try await manager.resource(at: server.url("/dashboard")).get()
        let order = manager.resource(at: server.url("/orders/1"))
        let shown = try #require(await order.current, "instant display from the summary")
        #expect(shown.isEmbedded && shown.resource.state["total"] == nil)
        let fetched = try await order.get()
        #expect(!fetched.isEmbedded && fetched.resource.state["total"] == 42.5)
        #expect(api.requests(to: "/orders/1").count == 1)
        // The default takes copies as complete: no request.
        let complete = try Self.manager()
        _ = try await complete.resource(at: server.url("/dashboard")).get()
        #expect(try await complete.resource(at: server.url("/orders/1")).get().isEmbedded)
        #expect(api.requests(to: "/orders/1").count == 1)
    }

    // MARK: 7. Subscriptions

    @Test func aSubscriptionMadeBeforeAChangeHearsItInOrder() async throws {
        let api = StubAPI()
        api.resource("/orders/1", StubResource(["status": "open"]), headers: ["Cache-Control": "max-age=60"])
        api.respond(to: .post, "/orders/1", with: StubResponse(status: 204))
        let server = try api.serve()
        let manager = try Self.manager()
        let order = manager.resource(at: server.url("/orders/1"))
        _ = try await order.get()
        let events = order.events  // registered here
        _ = try await manager.resource(at: server.url("/orders/1")).post(.json(["pay": true]))
        var iterator = events.makeAsyncIterator()
        let first = await Self.next(&iterator)
        #expect(first?.state?.isStale == false, "the state as it was when the subscription was made")
        #expect(await Self.next(&iterator) == .stale, "then the change that came after")
    }

    // MARK: 8. Link problems of a response with no document

    @Test func aMalformedLinkOnANoContentAnswerIsReportedNamingTheValue() async throws {
        let api = StubAPI()
        api.resource("/orders", StubResource(), headers: ["Cache-Control": "max-age=60"])
        api.handle(.post, "/orders/1/pay") { _ in
            var response = StubResponse(status: 204)
            // Two `Link` fields, as a client receives them: combined with ", " (RFC 9110, 5.3).
            response.headers = ["Link": "</orders>; rel=\"invalidates\", <broken; rel=\"invalidates\""]
            return response
        }
        let server = try api.serve()
        let log = EventLog()
        let manager = try Self.manager(observer: log.observer)
        let orders = manager.resource(at: server.url("/orders"))
        _ = try await orders.get()
        _ = try await manager.resource(at: server.url("/orders/1/pay")).post(.json([:]))
        #expect(await orders.current?.isStale == true, "the good value is applied")
        let reported = log.all.compactMap { event -> (String, String)? in
            if case .responseHeaderIgnored(_, let field, let value, _) = event { return (field, value) }
            return nil
        }
        #expect(reported.count == 1)
        #expect(reported.first?.0 == "Link" && reported.first?.1 == "<broken; rel=\"invalidates\"", "\(log.all)")
    }
}

extension ResourceEvent {
    /// The state of an `updated` event.
    fileprivate var state: ResourceState? {
        if case .updated(let state) = self { return state }
        return nil
    }
}
