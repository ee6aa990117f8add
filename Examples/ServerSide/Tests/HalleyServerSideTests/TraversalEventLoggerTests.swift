import Foundation
import Halley
import HalleyServerSide
import Logging
import NIOConcurrencyHelpers
import Testing

/// ``TraversalEventLogger``'s levels and metadata for the events a loopback traversal does not
/// produce (retries, fallbacks, the cache, credential refreshes, result key clashes), from
/// traversals over an `InMemoryRequester`.
@Suite struct TraversalEventLoggerTests {
    static let base = "https://api.example.com"

    @Test func retriesAreNoticesWithTheirReason() async throws {
        let requester = InMemoryRequester()
        let attempts = NIOLockedValueBox(0)
        await requester.register(Self.base + "/flaky") { request in
            let attempt = attempts.withLockedValue { count in
                count += 1
                return count
            }
            let status = attempt == 1 ? 503 : 200
            return ResourceResponse(
                status: status, headers: ["Content-Type": "application/hal+json", "Retry-After": "0"],
                url: request.url, body: Data(#"{"ok": true}"#.utf8))
        }
        let log = LogCapture()
        var options = log.options()
        options.retryPolicy = RetryPolicy(maxAttempts: 2)
        let document = try await ResourceManager(requester: requester).resource(
            from: URL(string: Self.base + "/flaky")!, options: options)
        #expect(document["ok"] == true)

        let retry = try #require(log.entries(for: "retrying").first)
        #expect(retry.level == .notice)
        #expect(retry["url.full"] == Self.base + "/flaky")
        #expect(retry["halley.attempt"] == "2")
        #expect(retry["halley.reason"] == "HTTP 503")
        #expect(retry["halley.delay_ms"] == "0.00")
        let finished = log.entries(for: "requestFinished")
        #expect(finished.map(\.level) == [.info, .debug], "the 503, then the success")
        #expect(finished.map { $0["halley.attempt"] } == ["1", "2"])
    }

    @Test func aFallbackIsAWarning() async throws {
        let requester = InMemoryRequester()
        await requester.register(Self.base + "/down", json: ["title": "Unavailable"], status: 503)
        let log = LogCapture()
        var options = log.options()
        options.fallback = { request, _ in
            ResourceResponse(url: request.url, body: Data(#"{"cached": true}"#.utf8))
        }
        let document = try await ResourceManager(requester: requester).resource(
            from: URL(string: Self.base + "/down")!, options: options)
        #expect(document["cached"] == true)
        let fallback = try #require(log.entries(for: "fallbackUsed").first)
        #expect(fallback.level == .warning)
        #expect(fallback["error.message"]?.hasPrefix("HTTP 503") == true, "\(fallback)")
    }

    @Test func cacheHitsAreDebug() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            Self.base + "/fresh",
            .init(
                status: 200, headers: ["Content-Type": "application/hal+json", "Cache-Control": "max-age=60"],
                body: Data(#"{"n": 1}"#.utf8)))
        var configuration = ResourceManager.Configuration()
        configuration.cache = ResponseCache()
        let manager = ResourceManager(requester: requester, configuration: configuration)
        let log = LogCapture()
        let url = URL(string: Self.base + "/fresh")!
        _ = try await manager.resource(from: url, options: log.options())
        _ = try await manager.resource(from: url, options: log.options())
        let hit = try #require(log.entries(for: "cacheHit").first)
        #expect(hit.level == .debug)
        #expect(hit["url.full"] == url.absoluteString)
        #expect(log.entries(for: "requestFinished").count == 1)
    }

    @Test func aCredentialRefreshIsInfoAndItsFailureAWarning() async throws {
        for succeeds in [true, false] {
            let requester = InMemoryRequester()
            let refreshed = NIOLockedValueBox(false)
            await requester.register(Self.base + "/me") { request in
                let ok = refreshed.withLockedValue { $0 }
                return ResourceResponse(
                    status: ok ? 200 : 401, headers: ["Content-Type": "application/hal+json"], url: request.url,
                    body: Data(#"{"me": true}"#.utf8))
            }
            var configuration = ResourceManager.Configuration()
            configuration.refreshCredentials = {
                struct Expired: Error {}
                guard succeeds else { throw Expired() }
                refreshed.withLockedValue { $0 = true }
            }
            let log = LogCapture()
            _ = try? await ResourceManager(requester: requester, configuration: configuration).resource(
                from: URL(string: Self.base + "/me")!, options: log.options())
            #expect(log.entries(for: "credentialsRefreshStarted").map(\.level) == [.info])
            let finished = try #require(log.entries(for: "credentialsRefreshFinished").first)
            #expect(finished.level == (succeeds ? .info : .warning))
            #expect((finished["error.message"] != nil) == !succeeds)
        }
    }

    @Test func aTakenResultKeyIsANotice() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            Self.base + "/order",
            json: ["_links": ["customer": ["href": "/people/1"]], "customer": "Ada (as text)"])
        await requester.register(Self.base + "/people/1", json: ["name": "Ada"])
        let log = LogCapture()
        _ = try await ResourceManager(requester: requester).resource(
            from: URL(string: Self.base + "/order")!, includes: ["customer"], options: log.options())
        let taken = try #require(log.entries(for: "resultKeyTaken").first)
        #expect(taken.level == .notice)
        #expect(taken["halley.key"] == "customer")
        #expect(taken["halley.include_path"] == "customer")
    }

    @Test func theRequestLevelAndTheLoggersLevelDecideWhatIsWritten() async throws {
        let requester = InMemoryRequester()
        await requester.register(Self.base + "/", json: ["_links": ["self": ["href": "/"]]])
        let log = LogCapture(level: .info)
        _ = try await ResourceManager(requester: requester).resource(
            from: URL(string: Self.base + "/")!, options: log.options(requestLevel: .info))
        #expect(log.entries.map(\.level) == [.info], "the finished request at info; the trace start dropped")
        #expect(log.entries.first?["halley.event"] == "requestFinished")

        let quiet = LogCapture(level: .info)
        _ = try await ResourceManager(requester: requester).resource(
            from: URL(string: Self.base + "/")!, options: quiet.options())
        #expect(quiet.entries.isEmpty, "debug records below the logger's level")
    }

    @Test func theLoggersOwnMetadataRidesAlong() async throws {
        let requester = InMemoryRequester()
        await requester.register(Self.base + "/", json: ["_links": ["self": ["href": "/"]]])
        let capture = LogCapture()
        var logger = capture.logger
        logger[metadataKey: "request.id"] = "r-42"
        var options = CallOptions()
        options.observer = TraversalEventLogger(logger: logger).observer
        _ = try await ResourceManager(requester: requester).resource(
            from: URL(string: Self.base + "/")!, options: options)
        #expect(!capture.entries.isEmpty)
        #expect(capture.entries.allSatisfy { $0["request.id"] == "r-42" })
    }
}
