import Foundation
import Testing

@testable import Halley

@Suite struct ResponseCacheTests {
    let base = Graph.base

    /// A server that answers 304 when the client's validator matches.
    private func conditionalServer(etag: String = "\"v1\"", cacheControl: String = "max-age=0") async -> InMemoryRequester {
        let requester = InMemoryRequester()
        await requester.register(base + "/a") { request in
            if request.headers["If-None-Match"] == etag {
                return ResourceResponse(status: 304, headers: ["ETag": etag, "Cache-Control": cacheControl], url: request.url, body: Data())
            }
            return ResourceResponse(headers: ["ETag": etag, "Cache-Control": cacheControl, "Last-Modified": "Sun, 22 Nov 2026 10:00:00 GMT"],
                                    url: request.url, body: Data(#"{"version": 1}"#.utf8))
        }
        return requester
    }

    private func manager(_ requester: InMemoryRequester, cache: ResponseCache = ResponseCache()) -> ResourceManager {
        var configuration = ResourceManager.Configuration()
        configuration.cache = cache
        return ResourceManager(requester: requester, configuration: configuration)
    }

    @Test func a304RevalidationReusesTheCachedBodyWithOneConditionalRequest() async throws {
        let requester = await conditionalServer()
        let manager = manager(requester)
        #expect(try await manager.resource(from: Graph.url("/a"))["version"] == 1)
        #expect(try await manager.resource(from: Graph.url("/a"))["version"] == 1)
        let requests = await requester.requests
        #expect(requests.count == 2)
        #expect(requests[0].headers["If-None-Match"] == nil)
        #expect(requests[1].headers["If-None-Match"] == "\"v1\"")
        #expect(requests[1].headers["If-Modified-Since"] == "Sun, 22 Nov 2026 10:00:00 GMT")
    }

    @Test func freshResponsesAreServedWithoutARequest() async throws {
        let requester = await conditionalServer(cacheControl: "max-age=60")
        let log = EventLog()
        var configuration = ResourceManager.Configuration()
        configuration.cache = ResponseCache()
        configuration.observer = log.observer
        let manager = ResourceManager(requester: requester, configuration: configuration)
        _ = try await manager.resource(from: Graph.url("/a"))
        _ = try await manager.resource(from: Graph.url("/a"))
        #expect(await requester.requestCount == 1)
        #expect(log.all.contains { if case .cacheHit = $0 { true } else { false } })
    }

    @Test func noStoreIsNotCachedAndCachingIsOffByDefault() async throws {
        let requester = await conditionalServer(cacheControl: "no-store, max-age=60")
        let cache = ResponseCache()
        _ = try await manager(requester, cache: cache).resource(from: Graph.url("/a"))
        #expect(cache.count == 0)

        let plain = await conditionalServer(cacheControl: "max-age=60")
        let uncached = ResourceManager(requester: plain)
        _ = try await uncached.resource(from: Graph.url("/a"))
        _ = try await uncached.resource(from: Graph.url("/a"))
        #expect(await plain.requestCount == 2)
    }

    @Test func unsafeMethodsAndExplicitCallsInvalidate() async throws {
        let requester = await conditionalServer(cacheControl: "max-age=60")
        let cache = ResponseCache()
        let manager = manager(requester, cache: cache)
        _ = try await manager.resource(from: Graph.url("/a"))
        #expect(cache.count == 1)
        _ = try await manager.send(.put, to: Graph.url("/a"), body: .json(["version": 2]))
        #expect(cache.count == 0)
        _ = try await manager.resource(from: Graph.url("/a"))
        cache.invalidate(Graph.url("/a"))
        #expect(cache.count == 0)
    }

    @Test func theCacheIsBoundedAndDropsTheLeastRecentlyUsed() {
        let cache = ResponseCache(maximumBytes: 25)
        for name in ["a", "b", "c"] {
            cache.store(ResourceResponse(headers: ["Cache-Control": "max-age=60"], url: Graph.url("/\(name)"),
                                         body: Data(repeating: 1, count: 10)), for: Graph.url("/\(name)"))
            if name == "b" { _ = cache.lookup(Graph.url("/a")) }
        }
        #expect(cache.count == 2)
        #expect(cache.lookup(Graph.url("/a")) != nil)
        #expect(cache.lookup(Graph.url("/b")) == nil)
        #expect(cache.lookup(Graph.url("/c")) != nil)
    }
}
