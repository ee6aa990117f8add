import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Headers, retries, time budget, validation and fallback, against the in-memory requester.
@Suite struct RequestPolicyTests {
    let base = Graph.base

    @Test func headersApplyManagerThenProviderThenCallThenClosure() async throws {
        let requester = InMemoryRequester()
        await requester.register(base + "/a", json: ["ok": true])
        var configuration = ResourceManager.Configuration()
        configuration.headers = ["X-Layer": "manager", "X-Manager": "1", "User-Agent": "Halley"]
        configuration.headerProvider = { ["X-Layer": "provider", "X-Provider": "1"] }
        var options = CallOptions()
        options.headers = ["X-Layer": "call", "X-Call": "1"]
        options.configureRequest = { request in
            #expect(request.headers["X-Layer"] == "call", "the closure runs last")
            request.headers["X-Layer"] = "closure"
        }
        _ = try await ResourceManager(requester: requester, configuration: configuration)
            .resource(from: Graph.url("/a"), options: options)
        let headers = try #require(await requester.requests.first?.headers)
        #expect(headers["X-Layer"] == "closure")
        #expect(headers["X-Manager"] == "1" && headers["X-Provider"] == "1" && headers["X-Call"] == "1")
        #expect(headers["User-Agent"] == "Halley")
    }

    @Test func anAsyncTokenProviderIsAskedForEveryRequest() async throws {
        actor Tokens {
            var issued = 0
            func next() async throws -> String {
                try await Task.sleep(for: .milliseconds(5))
                issued += 1
                return "token-\(issued)"
            }
        }
        let tokens = Tokens()
        let requester = InMemoryRequester()
        await requester.register(base + "/a", json: Graph.resource("/a", links: ["b": Graph.link("/b")]))
        await requester.register(base + "/b", json: ["b": 1])
        var configuration = ResourceManager.Configuration()
        configuration.headerProvider = { ["Authorization": "Bearer \(try await tokens.next())"] }
        _ = try await ResourceManager(requester: requester, configuration: configuration)
            .resource(from: Graph.url("/a"), includes: ["b"])
        let values = await requester.requests.compactMap { $0.headers["Authorization"] }
        #expect(values == ["Bearer token-1", "Bearer token-2"])
    }

    @Test func retriesTransientStatusesAndHonoursRetryAfterSeconds() async throws {
        let requester = InMemoryRequester()
        await requester.registerRecovering(base + "/flaky", after: 2)
        let log = EventLog()
        var configuration = ResourceManager.Configuration()
        configuration.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .seconds(120), maxDelay: .seconds(120))
        configuration.observer = log.observer
        let clock = ContinuousClock()
        let start = clock.now
        let result = try await ResourceManager(requester: requester, configuration: configuration).resource(
            from: Graph.url("/flaky"))
        #expect(result["ok"] == true)
        #expect(await requester.requestCount == 3)
        #expect(clock.now - start < .seconds(60), "Retry-After: 0 replaced the 120 s backoff")
        let retries = log.all.compactMap {
            if case .retrying(_, let attempt, _, let reason) = $0 { (attempt, reason) } else { nil }
        }
        #expect(retries.map(\.0) == [2, 3])
        #expect(retries.allSatisfy { $0.1 == "HTTP 503" })
        #expect(log.finished.map(\.attempt) == [1, 2, 3])
    }

    @Test func theRequesterIsToldWhichAttemptItSends() async throws {
        let requester = InMemoryRequester()
        await requester.registerRecovering(base + "/flaky", after: 2)
        var configuration = ResourceManager.Configuration()
        configuration.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1))
        _ = try await ResourceManager(requester: requester, configuration: configuration).resource(
            from: Graph.url("/flaky"))
        // What a tracing requester reads for `http.request.resend_count`.
        #expect(await requester.requests.map(\.attempt) == [1, 2, 3])
    }

    @Test func retryAfterAsAnHTTPDateIsHonoured() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let later = try #require(RetryPolicy.retryAfter("Tue, 14 Nov 2023 22:13:22 GMT", now: now))
        #expect(later == .seconds(2))
        #expect(RetryPolicy.retryAfter("7") == .seconds(7))
        #expect(RetryPolicy.retryAfter("soon") == nil)
        #expect(
            RetryPolicy(maxAttempts: 2, maxRetryAfter: .seconds(1)).delay(after: 1, retryAfter: .seconds(600))
                == .seconds(1))
    }

    /// Delays too long for 64 bits of nanoseconds, infinite or NaN factors: a delay, not a trap.
    @Test func extremeRetrySettingsGiveADelayNotACrash() {
        let forever = RetryPolicy(
            maxAttempts: 3, baseDelay: .seconds(Int64.max), maxDelay: .seconds(Int64.max), jitter: 0)
        #expect(forever.delay(after: 2, retryAfter: nil) == .seconds(Int64.max))
        let steep = RetryPolicy(maxAttempts: 3, baseDelay: .seconds(1), maxDelay: .seconds(5), multiplier: .infinity)
        #expect(steep.delay(after: 1, retryAfter: nil) <= .seconds(2))
        #expect(steep.delay(after: 2, retryAfter: nil) <= .seconds(10))
        let unknown = RetryPolicy(
            maxAttempts: 3, baseDelay: .seconds(1), maxDelay: .seconds(5), multiplier: .nan, jitter: 0)
        #expect(unknown.delay(after: 2, retryAfter: nil) == .seconds(5))
        let wild = RetryPolicy(maxAttempts: 3, baseDelay: .seconds(1), maxDelay: .seconds(5), jitter: .infinity)
        #expect(wild.delay(after: 1, retryAfter: nil) <= .seconds(2))
    }

    @Test func givesUpAfterMaxAttemptsAndNeverRetriesPostUnlessAllowed() async throws {
        let requester = InMemoryRequester()
        await requester.register(base + "/down", InMemoryRequester.Route(status: 502, body: Data("bad gateway".utf8)))
        var configuration = ResourceManager.Configuration()
        configuration.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1))
        let manager = ResourceManager(requester: requester, configuration: configuration)
        await #expect {
            try await manager.resource(from: Graph.url("/down"))
        } throws: { ($0 as? HalleyError)?.httpError?.status == 502 }
        #expect(await requester.requestCount == 3)

        await requester.resetCounts()
        _ = try? await manager.send(.post, to: Graph.url("/down"), body: .text("x"))
        #expect(await requester.requestCount == 1, "POST is not idempotent")

        await requester.resetCounts()
        var options = CallOptions()
        options.retryPolicy = configuration.retryPolicy
        options.retryPolicy?.retryableMethods.insert(.post)
        _ = try? await manager.send(.post, to: Graph.url("/down"), body: .text("x"), options: options)
        #expect(await requester.requestCount == 3)
    }

    @Test func transportErrorsAreRetriedAndReported() async throws {
        struct Refused: Error {}
        let requester = InMemoryRequester()
        let attempts = LockedValue(0)
        await requester.register(base + "/a") { request in
            if attempts.exchange(attempts.get() + 1) == 0 { throw Refused() }
            return ResourceResponse(url: request.url, body: Data("{}".utf8))
        }
        var configuration = ResourceManager.Configuration()
        configuration.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1))
        _ = try await ResourceManager(requester: requester, configuration: configuration).resource(
            from: Graph.url("/a"))
        #expect(await requester.requestCount == 2)

        configuration.retryPolicy = .none
        attempts.set(0)
        await #expect {
            try await ResourceManager(requester: requester, configuration: configuration).resource(
                from: Graph.url("/a"))
        } throws: { ($0 as? HalleyError)?.code == .transport && ($0 as? HalleyError)?.underlying is Refused }
    }

    @Test func aValidatorCanRejectA2xxDocument() async throws {
        let requester = InMemoryRequester()
        await requester.register(base + "/a", json: Graph.resource("/a", ["name": "no orders rel"]))
        struct MissingRel: Error {}
        var options = CallOptions()
        options.validator = { _, document in
            if document?.links.relation("orders") == nil { throw MissingRel() }
        }
        await #expect {
            try await ResourceManager(requester: requester).resource(from: Graph.url("/a"), options: options)
        } throws: { ($0 as? HalleyError)?.code == .validation && ($0 as? HalleyError)?.underlying is MissingRel }
    }

    @Test func aFallbackResponseIsUsedWhenTheRequestFailsAndIsValidatedToo() async throws {
        let requester = InMemoryRequester()
        await requester.register(base + "/a", InMemoryRequester.Route(status: 500, body: Data("boom".utf8)))
        let log = EventLog()
        var options = log.options
        options.fallback = { request, error in
            #expect(error.httpError?.status == 500)
            return ResourceResponse(url: request.url, body: Data(#"{"fromDisk": true}"#.utf8))
        }
        let manager = ResourceManager(requester: requester)
        let result = try await manager.resource(from: Graph.url("/a"), options: options)
        #expect(result["fromDisk"] == true)
        #expect(log.all.contains { if case .fallbackUsed = $0 { true } else { false } })

        options.fallback = { request, _ in ResourceResponse(url: request.url, body: Data("not json".utf8)) }
        await #expect {
            try await manager.resource(from: Graph.url("/a"), options: options)
        } throws: { ($0 as? HalleyError)?.code == .invalidDocument }

        struct Rejected: Error {}
        options.fallback = { request, _ in ResourceResponse(url: request.url, body: Data("{}".utf8)) }
        options.validator = { _, _ in throw Rejected() }
        await #expect {
            try await manager.resource(from: Graph.url("/a"), options: options)
        } throws: { ($0 as? HalleyError)?.code == .validation }
    }
}

/// Events read as sentences in logs, not as storage dumps.
@Suite struct TraversalEventDescriptionTests {
    @Test func eventsDescribeThemselvesInOneReadableLine() async throws {
        let requester = InMemoryRequester()
        await requester.register(Graph.base + "/a", json: Graph.resource("/a", links: ["b": Graph.link("/b")]))
        await requester.register(Graph.base + "/b", json: ["b": 1])
        let log = EventLog()
        let options = log.options
        _ = try await ResourceManager(requester: requester).resource(
            from: Graph.url("/a"), includes: ["b", "nope"], options: options)
        let lines = log.all.map(\.description)
        #expect(
            lines.contains {
                $0.hasPrefix("request finished: GET https://api.example.com/b 200 ")
                    && $0.hasSuffix("(include path \"b\", attempt 1)")
            }, "\(lines)")
        #expect(lines.contains("https://api.example.com/a has no nope relation (include path \"nope\")"), "\(lines)")
        #expect(lines.allSatisfy { !$0.contains("RequestRecord(") && !$0.contains("\n") }, "\(lines)")
    }
}
