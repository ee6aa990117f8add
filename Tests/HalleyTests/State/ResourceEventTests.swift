import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Events: order, the no-half-graph rule, collections, slow and cancelled consumers.
@Suite struct ResourceEventTests {
    @Test func aCollectionEmitsUpdatedWhenOneOfItsItemsGetsANewStateAfterTheItemIsStored() async throws {
        let api = ScriptedAPI()
        await api.serve(
            "/orders", Graph.resource("/orders", embedded: ["item": [Graph.resource("/orders/1", ["status": "open"])]]))
        await api.answerWrites("/orders/1", withNewState: ["status": "paid"])
        let manager = await stateManager(api)
        let list = manager.resource(at: Graph.url("/orders"))
        _ = try await list.get()
        var events = list.events.makeAsyncIterator()
        #expect(await events.next()?.kind == "updated")
        _ = try await manager.resource(at: Graph.url("/orders/1")).put(.json(["status": "paid"]))
        let event = try #require(await events.next())
        #expect(event.kind == "updated")
        #expect(event.state?.isStale == false)
        // No half-updated graph: by the time the list hears of it, the item's new state is stored.
        #expect(await manager.resource(at: Graph.url("/orders/1")).current?.resource.state["status"] == "paid")
    }

    @Test func aDocumentEmbeddingAnItemThatGotANewStateHoldsThatState() async throws {
        let api = ScriptedAPI()
        await api.serve(
            "/orders",
            Graph.resource(
                "/orders",
                embedded: ["item": [Graph.resource("/orders/1", ["status": "open"]), Graph.resource("/orders/2")]],
                ["count": 2]),
            headers: ["Cache-Control": "max-age=60", "ETag": "\"list-1\""])
        await api.answerWrites("/orders/1", withNewState: ["status": "paid"])
        let manager = await stateManager(api)
        let list = manager.resource(at: Graph.url("/orders"))
        _ = try await list.get()
        _ = try await manager.resource(at: Graph.url("/orders/1")).put(.json(["status": "paid"]))
        let state = try #require(await list.current)
        let items = state.resource.embedded.resources(for: "item")
        #expect(items.first?.state["status"] == "paid", "the list shows the edited item")
        #expect(items.count == 2 && items.last?.links.selfLink?.href == "/orders/2", "the other item as it was")
        #expect(state.resource.state["count"] == 2, "the list's own members")
        // No server sent the composed body: it carries no validators.
        #expect(state.etag == nil && state.headers["ETag"] == nil)
        #expect(state.isStale == false)
        // Its next read is still fresh: no request.
        _ = try await list.get()
        #expect(await api.requester.requestCount == 2, "GET /orders, PUT /orders/1")
    }

    @Test func aDocumentEmbeddingAStaleItemHearsStale() async throws {
        let api = ScriptedAPI()
        await api.serve(
            "/orders", Graph.resource("/orders", embedded: ["item": [Graph.resource("/orders/1", ["status": "open"])]]))
        await api.answerWrites("/orders/1")
        let manager = await stateManager(api)
        let list = manager.resource(at: Graph.url("/orders"))
        _ = try await list.get()
        var events = list.events.makeAsyncIterator()
        _ = await events.next()
        _ = try await manager.resource(at: Graph.url("/orders/1")).delete()
        #expect(await events.next() == .stale)
    }

    @Test func aSlowConsumerGetsTheLatestStateNotEveryOne() async throws {
        let requester = InMemoryRequester()
        let version = Locked(0)
        await requester.register(Graph.base + "/a") { request in
            let current = version.withLock { value -> Int in
                value += 1
                return value
            }
            return ResourceResponse(
                headers: ["Cache-Control": "no-cache"], url: request.url,
                body: Graph.resource("/a", ["v": .int(current)]).serialized())
        }
        var configuration = ResourceManager.Configuration()
        configuration.store = ResourceStore()
        let handle = ResourceManager(requester: requester, configuration: configuration).resource(at: Graph.url("/a"))
        _ = try await handle.get()
        var events = handle.events.makeAsyncIterator()
        #expect(await events.next()?.state?.resource.state["v"] == 1)
        for _ in 0..<20 { _ = try await handle.refresh() }
        #expect(await events.next()?.state?.resource.state["v"] == 21, "only the newest update waited")
    }

    @Test func cancellingTheConsumerEndsTheSequenceAndUnregistersIt() async throws {
        let api = ScriptedAPI()
        await api.serve("/a", Graph.resource("/a"))
        let store = ResourceStore()
        let manager = await stateManager(api, store: store)
        let handle = manager.resource(at: Graph.url("/a"))
        _ = try await handle.get()
        let started = AsyncStream<Void>.makeStream()
        let consumer = Task {
            var count = 0
            for await _ in handle.events {
                count += 1
                started.continuation.yield()
            }
            return count
        }
        for await _ in started.stream { break }
        #expect(store.subscriberCount == 1)
        consumer.cancel()
        #expect(await consumer.value == 1, "the loop ended")
        #expect(store.subscriberCount == 0, "nothing stays registered")
    }

    @Test func theSameRepresentationAgainIsNoEvent() async throws {
        let api = ScriptedAPI()
        await api.serve("/a", Graph.resource("/a", ["v": 1]), headers: ["Cache-Control": "no-cache"])
        await api.answerWrites("/a")
        let manager = await stateManager(api)
        let handle = manager.resource(at: Graph.url("/a"))
        _ = try await handle.get()
        var events = handle.events.makeAsyncIterator()
        _ = await events.next()
        _ = try await handle.refresh()
        _ = try await handle.delete()
        #expect(await events.next() == .deleted, "the refresh brought nothing new")
    }
}

/// Screens read events on the main actor: the sequence must be usable there (compiles in
/// Swift 6 mode) and deliver there.
@Suite struct ResourceEventsOnTheMainActorTests {
    @MainActor @Test func eventsAreReadInMainActorCode() async throws {
        let api = ScriptedAPI()
        await api.serve("/a", Graph.resource("/a", ["v": 1]))
        await api.answerWrites("/a")
        let manager = await stateManager(api)
        let handle = manager.resource(at: Graph.url("/a"))
        _ = try await handle.get()
        var seen: [String] = []
        for await event in handle.events {
            seen.append(event.kind)
            if seen.count == 1 { _ = try await handle.delete() } else { break }
        }
        #expect(seen == ["updated", "deleted"])
    }
}
