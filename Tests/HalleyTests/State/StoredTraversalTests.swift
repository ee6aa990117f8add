import Foundation
import Halley
import HalleyTestSupport
import Testing

/// A relation whose resources are fresh in the store is answered from it in one go: the same
/// results, scopes, events and request budget as one resource at a time.
@Suite struct StoredTraversalTests {
    /// `/list` links its items (`/i/1` twice); each item says whose credentials asked for it.
    private func whoAPI(itemHeaders: [Int: HeaderFields] = [:]) async -> InMemoryRequester {
        let requester = InMemoryRequester()
        let items: [JSONValue] = [1, 2, 1, 3].map { Graph.link("/i/\($0)") }
        await requester.register(Graph.base + "/list") { request in
            ResourceResponse(
                headers: ["Cache-Control": "max-age=60"], url: request.url,
                body: Graph.resource("/list", links: ["items": .array(items)]).serialized())
        }
        for id in 1...3 {
            await requester.register(Graph.base + "/i/\(id)") { request in
                ResourceResponse(
                    headers: itemHeaders[id] ?? ["Cache-Control": "max-age=60"], url: request.url,
                    body: Graph.resource(
                        "/i/\(id)", ["who": .string(request.headers["Authorization"] ?? "nobody")]
                    ).serialized())
            }
        }
        return requester
    }

    private func whos(_ document: JSONValue) -> [String] {
        (document.objectValue?["items"]?.arrayValue ?? []).compactMap { $0.objectValue?["who"]?.stringValue }
    }

    @Test func eachCredentialScopeTraversesItsOwnState() async throws {
        let requester = await whoAPI()
        var configuration = ResourceManager.Configuration()
        configuration.store = ResourceStore()
        let manager = ResourceManager(requester: requester, configuration: configuration)
        let alice = try await manager.resource(from: Graph.url("/list"), includes: ["[items]"], options: user("alice"))
        #expect(whos(alice) == Array(repeating: "Bearer alice", count: 4))
        #expect(await requester.requestCount == 4)
        let bob = try await manager.resource(from: Graph.url("/list"), includes: ["[items]"], options: user("bob"))
        #expect(whos(bob) == Array(repeating: "Bearer bob", count: 4))
        #expect(await requester.requestCount == 8)
        let again = try await manager.resource(from: Graph.url("/list"), includes: ["[items]"], options: user("alice"))
        #expect(again == alice)
        #expect(await requester.requestCount == 8, "alice's state answered alice")
        let nobody = try await manager.resource(from: Graph.url("/list"), includes: ["[items]"])
        #expect(whos(nobody) == Array(repeating: "nobody", count: 4))
        #expect(await requester.requestCount == 12)
    }

    @Test func aStaleItemIsFetchedAndEachStoredOneIsUsedOnce() async throws {
        let requester = await whoAPI(itemHeaders: [2: ["Cache-Control": "no-cache"]])
        let log = EventLog()
        var configuration = ResourceManager.Configuration()
        configuration.store = ResourceStore()
        configuration.observer = log.observer
        let manager = ResourceManager(requester: requester, configuration: configuration)
        let first = try await manager.resource(from: Graph.url("/list"), includes: ["[items]"])
        #expect(await requester.requestCount == 4)
        let second = try await manager.resource(from: Graph.url("/list"), includes: ["[items]"])
        #expect(second == first)
        #expect(await requester.requestCount == 5, "only the no-cache item asked again")
        #expect(await requester.count(for: Graph.base + "/i/2") == 2)
        let used = log.all.compactMap { event -> String? in
            if case .stateUsed(let url) = event { return url.path } else { return nil }
        }
        #expect(used.sorted() == ["/i/1", "/i/3", "/list"], "once each, the duplicate link included")
    }

    @Test func storedResourcesCountAgainstTheRequestBudget() async throws {
        let requester = await whoAPI()
        var configuration = ResourceManager.Configuration()
        configuration.store = ResourceStore()
        let manager = ResourceManager(requester: requester, configuration: configuration)
        _ = try await manager.resource(from: Graph.url("/list"), includes: ["[items]"])
        var options = CallOptions()
        options.maxRequests = 3
        let error = await #expect(throws: HalleyError.self) {
            try await manager.resource(from: Graph.url("/list"), includes: ["[items]"], options: options)
        }
        #expect(error?.code == .limitExceeded)
        options.maxRequests = 4
        let within = try await manager.resource(from: Graph.url("/list"), includes: ["[items]"], options: options)
        #expect(whos(within).count == 4)
        #expect(await requester.requestCount == 4)
    }
}
