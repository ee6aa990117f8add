import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// `ResponseCacheTests` over loopback HTTP, through each transport: eviction during
/// revalidation (issue #26), and one cached manager serving several users.
@Suite struct ResponseCacheHTTPTests {
    /// Issue #26 at small scale: a cache smaller than the API, one request at a time, every
    /// response `no-cache` with an `ETag`. In the second traversal, requests made conditional
    /// wait for the concurrency slot while the others' answers evict their entries; before the
    /// fix their `304`s failed them (6 to 14 of the 400 over loopback).
    @Test(arguments: Transport.allCases)
    func overHTTPASecondTraversalThroughAnEvictingCacheLosesNoRelationship(transport: Transport) async throws {
        let server = try await TestServer.shared()
        let cache = ResponseCache(maximumBytes: 262_144)
        var configuration = ResourceManager.Configuration()
        configuration.cache = cache
        configuration.maxConcurrency = 1
        let log = EventLog()
        configuration.observer = log.observer
        let manager = ResourceManager(requester: try transport.make(), configuration: configuration)
        // 400 documents of about 1 KiB: more than the cache holds.
        let root = server.url("/etag/evicting-\(transport)-\(UUID().uuidString.prefix(8))?items=400&pad=1000")
        for pass in 1...2 {
            // `.extra`, which no item links, makes each item a branch rather than a leaf: a
            // leaf fan-out runs no more workers than the limit, each building its request only
            // when the slot is free, so the requests made conditional would never wait.
            let result = try await manager.traverse(root, includes: ["[item].extra"])
            #expect(
                result.failures.isEmpty, "pass \(pass): \(result.failures.count) failed: \(result.failures.prefix(3))")
            let items = try #require(result.document["item"]?.arrayValue, "pass \(pass)")
            #expect(items.count == 400, "pass \(pass)")
            #expect(items.enumerated().allSatisfy { $1["name"]?.stringValue?.hasSuffix("/\($0 + 1)") == true })
        }
        // The scenario happened: some conditional requests were answered 304 (revalidated).
        #expect(log.all.contains { if case .cacheRevalidated = $0 { true } else { false } })
    }

    @Test func overHTTPTwoTokensThroughOneCachedManagerEachGetTheirOwn() async throws {
        let server = try await TestServer.isolated()
        let manager = ResourceManager.over(URLSessionRequester()) { $0.cache = ResponseCache() }
        func call(_ headers: HeaderFields, vary: String? = nil) async throws -> JSONValue {
            var options = CallOptions()
            options.headers = headers
            let path = "/cacheable" + (vary.map { "?vary=" + TestServer.queryValue($0) } ?? "")
            return try await manager.resource(from: server.url(path), options: options)
        }
        for _ in 0..<2 {
            #expect(try await call(["Authorization": "Bearer alice"])["authorization"] == "Bearer alice")
            #expect(try await call(["Authorization": "Bearer bob"])["authorization"] == "Bearer bob")
            #expect(try await call([:])["authorization"] == .null)
        }
        #expect(try await server.requests(containing: "/cacheable").count == 3)

        for _ in 0..<2 {
            #expect(try await call(["Accept-Language": "en"], vary: "Accept-Language")["language"] == "en")
            #expect(try await call(["Accept-Language": "fr"], vary: "Accept-Language")["language"] == "fr")
        }
        #expect(try await server.requests(containing: "vary=Accept-Language").count == 2)

        _ = try await call([:], vary: "*")
        _ = try await call([:], vary: "*")
        #expect(
            try await server.requests(containing: "vary=%2A").count + server.requests(containing: "vary=*").count == 2)
    }
}
