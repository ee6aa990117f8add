import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Cache policies per get, stale data over no data, and `404`/`410` removing a state.
@Suite struct CachePolicyTests {
    /// `/a` answers what `answer` holds now: a status, headers and a version in the body.
    final class Server: Sendable {
        struct Answer: Sendable {
            var status = 200
            var headers: HeaderFields = ["Cache-Control": "max-age=0"]
            var version = 1
            var isDown = false
        }

        let requester = InMemoryRequester()
        let answer = LockedValue(Answer())

        init() async {
            await requester.register(Graph.base + "/a") { [answer] request in
                let now = answer.get()
                if now.isDown { throw URLError(.notConnectedToInternet) }
                return ResourceResponse(
                    status: now.status, headers: now.headers, url: request.url,
                    body: now.status == 200 ? Graph.resource("/a", ["v": .int(now.version)]).serialized() : Data())
            }
        }

        func manager(_ store: ResourceStore = ResourceStore()) -> ResourceManager {
            var configuration = ResourceManager.Configuration()
            configuration.store = store
            configuration.retryPolicy = RetryPolicy.none
            return ResourceManager(requester: requester, configuration: configuration)
        }

        var requests: Int { get async { await requester.requestCount } }
    }

    @Test func storedOnlyNeverSendsARequestAndNamesTheURLWhenNothingIsStored() async throws {
        let server = await Server()
        let handle = server.manager().resource(at: Graph.url("/a"))
        let error = await #expect(throws: HalleyError.self) { try await handle.get(policy: .storedOnly) }
        #expect(error?.code == .notStored)
        #expect(error?.url == Graph.url("/a"))
        #expect(error?.description.contains("https://api.example.com/a") == true)
        #expect(await server.requests == 0)
        _ = try await handle.get()
        let stale = try await handle.get(policy: .storedOnly)
        #expect(stale.isStale, "max-age=0: stale, still shown")
        #expect(await server.requests == 1)
    }

    @Test func networkAlwaysAsks() async throws {
        let server = await Server()
        server.answer.withLock { $0.headers = ["Cache-Control": "max-age=600"] }
        let handle = server.manager().resource(at: Graph.url("/a"))
        _ = try await handle.get(policy: .network)
        _ = try await handle.get(policy: .network)
        #expect(await server.requests == 2)
        _ = try await handle.get(policy: .storedIfFresh)
        #expect(await server.requests == 2)
    }

    @Test func storedThenRefreshReturnsTheStaleStateAtOnceAndObserversGetTheNewOne() async throws {
        let server = await Server()
        let handle = server.manager().resource(at: Graph.url("/a"))
        _ = try await handle.get()
        server.answer.withLock { $0.version = 2 }
        var events = handle.events.makeAsyncIterator()
        guard case .updated(let first)? = await events.next() else {
            Issue.record("no stored state first")
            return
        }
        #expect(first.resource.state["v"] == 1)
        let shown = try await handle.get(policy: .storedThenRefresh)
        #expect(shown.resource.state["v"] == 1)
        #expect(shown.isStale)
        guard case .updated(let refreshed)? = await events.next() else {
            Issue.record("no refresh")
            return
        }
        #expect(refreshed.resource.state["v"] == 2)
        #expect(await server.requests == 2)
    }

    @Test func storedIfFreshHonoursStaleWhileRevalidate() async throws {
        let server = await Server()
        server.answer.withLock { $0.headers = ["Cache-Control": "max-age=0, stale-while-revalidate=600"] }
        let handle = server.manager().resource(at: Graph.url("/a"))
        _ = try await handle.get()
        server.answer.withLock { $0.version = 2 }
        var events = handle.events.makeAsyncIterator()
        _ = await events.next()
        let shown = try await handle.get()
        #expect(shown.resource.state["v"] == 1, "within stale-while-revalidate: at once")
        guard case .updated(let refreshed)? = await events.next() else {
            Issue.record("no revalidation")
            return
        }
        #expect(refreshed.resource.state["v"] == 2)
    }

    @Test func aFailedRefreshServesTheLastStateWithinStaleIfErrorAndSaysWhy() async throws {
        let server = await Server()
        server.answer.withLock { $0.headers = ["Cache-Control": "max-age=0, stale-if-error=600"] }
        let handle = server.manager().resource(at: Graph.url("/a"))
        _ = try await handle.get()
        server.answer.withLock { $0.isDown = true }
        let offline = try await handle.get()
        #expect(offline.resource.state["v"] == 1)
        #expect(offline.isStale)
        #expect(offline.refreshFailure?.error.code == .transport)
        server.answer.withLock {
            $0.isDown = false
            $0.status = 503
        }
        #expect(try await handle.get().refreshFailure?.error.httpError?.status == 503)
    }

    @Test func withoutStaleIfErrorAFailedRefreshFailsUnlessThePolicyShowsStaleData() async throws {
        let server = await Server()
        let handle = server.manager().resource(at: Graph.url("/a"))
        _ = try await handle.get()
        server.answer.withLock { $0.isDown = true }
        await #expect(throws: HalleyError.self) { try await handle.get() }
        // storedThenRefresh already showed the stale state; its background refresh fails quietly.
        #expect(try await handle.get(policy: .storedThenRefresh).resource.state["v"] == 1)
    }

    @Test(arguments: [404, 410]) func aResourceThatIsGoneIsRemoved(status: Int) async throws {
        let server = await Server()
        let handle = server.manager().resource(at: Graph.url("/a"))
        _ = try await handle.get()
        var events = handle.events.makeAsyncIterator()
        _ = await events.next()
        server.answer.withLock { $0.status = status }
        await #expect(throws: HalleyError.self) { try await handle.get() }
        #expect(await events.next() == .deleted)
        #expect(await handle.current == nil)
    }

    #if canImport(Observation)
        @MainActor @Test func aModelKeepsShowingTheLastValueAndExposesTheError() async throws {
            let server = await Server()
            let handle = server.manager().resource(at: Graph.url("/a"))
            _ = try await handle.get()
            server.answer.withLock { $0.isDown = true }
            let model = ResourceModel(handle, policy: .storedThenRefresh)
            await model.load()
            #expect(model.value?.resource.state["v"] == 1)
            #expect(model.isStale)
            #expect((model.error as? HalleyError)?.code == .transport)
            #expect(await server.requests == 2, "the stale state was refreshed once")
        }
    #endif
}
