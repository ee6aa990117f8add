import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

@Suite struct ResponseCacheTests {
    let base = Graph.base

    /// A server that answers 304 when the client's validator matches.
    private func conditionalServer(etag: String = "\"v1\"", cacheControl: String = "max-age=0") async
        -> InMemoryRequester
    {
        let requester = InMemoryRequester()
        await requester.register(base + "/a") { request in
            if request.headers["If-None-Match"] == etag {
                return ResourceResponse(
                    status: 304, headers: ["ETag": etag, "Cache-Control": cacheControl], url: request.url, body: Data())
            }
            return ResourceResponse(
                headers: [
                    "ETag": etag, "Cache-Control": cacheControl, "Last-Modified": "Sun, 22 Nov 2026 10:00:00 GMT",
                ],
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

    /// A stale entry with neither `ETag` nor `Last-Modified` cannot be revalidated: the next get
    /// is a plain request, and a `304` to it (which a request without validators cannot ask
    /// for) is the server's error, not a confirmation of the stale body.
    @Test func aStaleEntryWithoutValidatorsIsNotRevalidated() async throws {
        let requester = InMemoryRequester()
        let answers = LockedValue(0)
        await requester.register(base + "/a") { request in
            let answer = answers.withLock { count -> Int in
                count += 1
                return count
            }
            if answer == 1 {
                return ResourceResponse(
                    headers: ["Cache-Control": "max-age=0"], url: request.url, body: Data(#"{"version": 1}"#.utf8))
            }
            return ResourceResponse(status: 304, url: request.url, body: Data())
        }
        let log = EventLog()
        var configuration = ResourceManager.Configuration()
        configuration.cache = ResponseCache()
        configuration.observer = log.observer
        let manager = ResourceManager(requester: requester, configuration: configuration)
        #expect(try await manager.resource(from: Graph.url("/a"))["version"] == 1)
        let error = await #expect(throws: HalleyError.self) { try await manager.resource(from: Graph.url("/a")) }
        #expect(error?.httpError?.status == 304)
        #expect(!log.all.contains { if case .cacheRevalidated = $0 { true } else { false } })
        let second = try #require(await requester.requests.last)
        #expect(second.headers["If-None-Match"] == nil && second.headers["If-Modified-Since"] == nil)
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
        // Each entry costs its body (10), its headers (23) and 256: two fit in 600 bytes.
        let cache = ResponseCache(maximumBytes: 600)
        func request(_ name: String) -> ResourceRequest { ResourceRequest(url: Graph.url("/\(name)")) }
        for name in ["a", "b", "c"] {
            cache.store(
                ResourceResponse(
                    headers: ["Cache-Control": "max-age=60"], url: Graph.url("/\(name)"),
                    body: Data(repeating: 1, count: 10)), for: request(name))
            if name == "b" { _ = cache.lookup(request("a")) }
        }
        #expect(cache.count == 2)
        #expect(cache.lookup(request("a")) != nil)
        #expect(cache.lookup(request("b")) == nil)
        #expect(cache.lookup(request("c")) != nil)
    }

    /// The eviction order survives many uses (the order's queue is rebuilt every few dozen):
    /// after a thousand reads in a known pattern, the one read longest ago goes first.
    @Test func theLeastRecentlyUsedGoesFirstAfterManyUses() {
        // Ten entries of 289 bytes fit in 2,900; an eleventh evicts one.
        let cache = ResponseCache(maximumBytes: 2_900)
        func request(_ index: Int) -> ResourceRequest { ResourceRequest(url: Graph.url("/\(index)")) }
        func store(_ index: Int) {
            cache.store(
                ResourceResponse(
                    headers: ["Cache-Control": "max-age=60"], url: Graph.url("/\(index)"),
                    body: Data(repeating: 1, count: 10)), for: request(index))
        }
        for index in 0..<10 { store(index) }
        // Reads every entry but 3 a hundred times, in a rotating order.
        for round in 0..<100 {
            for offset in 0..<10 where (offset + round) % 10 != 3 { _ = cache.lookup(request((offset + round) % 10)) }
        }
        store(10)
        #expect(cache.count == 10)
        #expect(cache.lookup(request(3)) == nil)
        for index in [0, 1, 2, 4, 5, 6, 7, 8, 9, 10] { #expect(cache.lookup(request(index)) != nil, "entry \(index)") }
    }

    // MARK: Credentials and Vary

    /// `/me` answers with whoever asked (its `Authorization`), fresh for a minute, with
    /// `vary` as its `Vary` header when given.
    private func whoAmIServer(vary: String? = nil) async -> InMemoryRequester {
        let requester = InMemoryRequester()
        await requester.register(base + "/me") { request in
            var headers: HeaderFields = ["Cache-Control": "max-age=60"]
            if let vary { headers["Vary"] = vary }
            let body: JSONValue = [
                "user": request.headers["Authorization"].map { .string($0) } ?? .null,
                "language": request.headers["Accept-Language"].map { .string($0) } ?? .null,
            ]
            return ResourceResponse(headers: headers, url: request.url, body: body.serialized())
        }
        return requester
    }

    private func call(_ manager: ResourceManager, _ headers: HeaderFields) async throws -> JSONValue {
        var options = CallOptions()
        options.headers = headers
        return try await manager.resource(from: Graph.url("/me"), options: options)
    }

    @Test func oneUsersCachedResponseIsNeverServedToAnotherOrToACallWithoutCredentials() async throws {
        let requester = await whoAmIServer()
        let cache = ResponseCache()
        let manager = manager(requester, cache: cache)
        #expect(try await call(manager, ["Authorization": "Bearer alice"])["user"] == "Bearer alice")
        #expect(try await call(manager, ["Authorization": "Bearer bob"])["user"] == "Bearer bob")
        #expect(try await call(manager, [:])["user"] == .null)
        #expect(await requester.requestCount == 3, "three credentials, three requests")
        // Each is now served from the cache to its own caller only.
        #expect(try await call(manager, ["Authorization": "Bearer alice"])["user"] == "Bearer alice")
        #expect(try await call(manager, ["Authorization": "Bearer bob"])["user"] == "Bearer bob")
        #expect(try await call(manager, [:])["user"] == .null)
        #expect(await requester.requestCount == 3)
        #expect(cache.count == 3)
        // A cookie is a credential too, and so is a header the caller names as one.
        #expect(try await call(manager, ["Cookie": "session=1"])["user"] == .null)
        #expect(await requester.requestCount == 4)
        var options = CallOptions()
        options.headers = ["X-Api-Key": "k1"]
        options.credentialHeaders = ["X-Api-Key"]
        _ = try await manager.resource(from: Graph.url("/me"), options: options)
        #expect(await requester.requestCount == 5)
        cache.invalidate(Graph.url("/me"))
        #expect(cache.count == 0, "invalidation removes every variant")
    }

    @Test func credentialsAreFingerprintedNotStoredInClear() async throws {
        let requester = await whoAmIServer()
        let cache = ResponseCache()
        _ = try await call(manager(requester, cache: cache), ["Authorization": "Bearer s3cr3t-token"])
        let entry = try #require(
            cache.lookup(ResourceRequest(url: Graph.url("/me"), headers: ["Authorization": "Bearer s3cr3t-token"])))
        #expect(entry.credentials.count == 32)
        #expect(!String(decoding: entry.credentials, as: UTF8.self).contains("s3cr3t"))
        #expect(cache.lookup(ResourceRequest(url: Graph.url("/me"), headers: ["Authorization": "Bearer other"])) == nil)
    }

    @Test func varyServesOnlyRequestsWhoseVariedHeadersMatch() async throws {
        let requester = await whoAmIServer(vary: "Accept-Language")
        let manager = manager(requester)
        #expect(try await call(manager, ["Accept-Language": "en"])["language"] == "en")
        #expect(try await call(manager, ["Accept-Language": "fr"])["language"] == "fr")
        #expect(try await call(manager, [:])["language"] == .null)
        #expect(await requester.requestCount == 3)
        #expect(try await call(manager, ["Accept-Language": "en"])["language"] == "en")
        #expect(try await call(manager, ["Accept-Language": "fr"])["language"] == "fr")
        #expect(await requester.requestCount == 3, "each variant is served from the cache")
    }

    @Test func varyStarIsNeverServedFromTheCache() async throws {
        let requester = await whoAmIServer(vary: "*")
        let cache = ResponseCache()
        let manager = manager(requester, cache: cache)
        _ = try await call(manager, [:])
        _ = try await call(manager, [:])
        #expect(await requester.requestCount == 2)
        #expect(cache.count == 0)
    }

    @Test func theFingerprintDigestIsSHA256() {
        func hex(_ text: String) -> String {
            SHA256.digest(Array(text.utf8)).map { String(format: "%02x", $0) }.joined()
        }
        #expect(hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            hex(String(repeating: "a", count: 1000))
                == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    // MARK: Eviction during revalidation (issue #26)

    /// A server whose `304` arrives after `evict` removed the entry the request was made
    /// conditional with, as a concurrent call's stores do in a cache smaller than the API.
    private func evictingServer(_ evict: @escaping @Sendable () -> Void) async -> InMemoryRequester {
        let requester = InMemoryRequester()
        await requester.register(base + "/a") { request in
            let headers: HeaderFields = ["ETag": "\"v1\"", "Cache-Control": "no-cache"]
            if request.headers["If-None-Match"] == "\"v1\"" {
                evict()
                return ResourceResponse(status: 304, headers: headers, url: request.url, body: Data())
            }
            return ResourceResponse(headers: headers, url: request.url, body: Data(#"{"version": 1}"#.utf8))
        }
        return requester
    }

    @Test(arguments: ["invalidate", "removeAll"])
    func a304ForAnEntryEvictedWhileItsRequestWasInFlightAnswersWithTheHeldBody(eviction: String) async throws {
        let cache = ResponseCache()
        let requester = await evictingServer {
            if eviction == "invalidate" { cache.invalidate(Graph.url("/a")) } else { cache.removeAll() }
        }
        let log = EventLog()
        var configuration = ResourceManager.Configuration()
        configuration.cache = cache
        configuration.observer = log.observer
        let manager = ResourceManager(requester: requester, configuration: configuration)
        #expect(try await manager.resource(from: Graph.url("/a"))["version"] == 1)
        // Before the fix: `HTTP 304 Not Modified`.
        #expect(try await manager.resource(from: Graph.url("/a"))["version"] == 1)
        #expect(log.all.contains { if case .cacheRevalidated = $0 { true } else { false } })
        // The server has just confirmed the body: it is stored again, and the next call
        // revalidates it rather than fetching it whole.
        #expect(cache.count == 1)
        #expect(try await manager.resource(from: Graph.url("/a"))["version"] == 1)
        let requests = await requester.requests
        #expect(requests.count == 3)
        #expect(requests.dropFirst().allSatisfy { $0.headers["If-None-Match"] == "\"v1\"" })
    }

    @Test func aRevalidatedEntryDoesNotReplaceAnotherRepresentationStoredMeanwhile() async throws {
        // While the conditional request for v1 is in flight, another call stores v2; the 304
        // answers this call with v1 (what the server confirmed for it) and leaves v2 stored.
        let cache = ResponseCache()
        let requester = InMemoryRequester()
        let v2 = ResourceResponse(
            headers: ["ETag": "\"v2\"", "Cache-Control": "no-cache"], url: Graph.url("/a"),
            body: Data(#"{"version": 2}"#.utf8))
        await requester.register(base + "/a") { request in
            let headers: HeaderFields = ["ETag": "\"v1\"", "Cache-Control": "no-cache"]
            if request.headers["If-None-Match"] == "\"v1\"" {
                cache.store(v2, for: ResourceRequest(url: Graph.url("/a")))
                return ResourceResponse(status: 304, headers: headers, url: request.url, body: Data())
            }
            return ResourceResponse(headers: headers, url: request.url, body: Data(#"{"version": 1}"#.utf8))
        }
        let manager = ResourceManager.over(requester) { $0.cache = cache }
        #expect(try await manager.resource(from: Graph.url("/a"))["version"] == 1)
        #expect(try await manager.resource(from: Graph.url("/a"))["version"] == 1)
        let stored = try #require(cache.lookup(ResourceRequest(url: Graph.url("/a"))))
        #expect(stored.etag == "\"v2\"")
    }
}
