import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Credentials that can recover: the header provider is asked for every attempt, and a `401`
/// from a trusted origin refreshes credentials once, then retries once.
@Suite struct AuthenticationTests {
    let base = Graph.base

    /// A token store: `current()` is what the provider sends, `refresh()` issues a new one.
    actor Tokens {
        private(set) var current = 1
        private(set) var refreshes = 0
        var failRefresh = false
        func value() -> String { "token-\(current)" }
        func rotate() { current += 1 }
        func refresh() async throws {
            refreshes += 1
            try await Task.sleep(for: .milliseconds(20))  // long enough for concurrent 401s to pile up
            if failRefresh { throw TestError() }
            current += 1
        }
        func setFailRefresh() { failRefresh = true }
    }

    struct TestError: Error, CustomStringConvertible { var description: String { "the token endpoint is down" } }

    private func manager(
        _ requester: any RequesterInterface & Sendable, tokens: Tokens, refresh: Bool = true, log: EventLog? = nil
    )
        -> ResourceManager
    {
        var configuration = ResourceManager.Configuration()
        configuration.headerProvider = { ["Authorization": "Bearer \(await tokens.value())"] }
        if refresh { configuration.refreshCredentials = { try await tokens.refresh() } }
        configuration.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1))
        configuration.observer = log?.observer
        return ResourceManager(requester: requester, configuration: configuration)
    }

    /// `/protected` answers 200 only to `Bearer token-<valid>`.
    private func protectedServer(valid: Int) async -> InMemoryRequester {
        let requester = InMemoryRequester()
        await requester.register(base + "/protected") { request in
            guard request.headers["Authorization"] == "Bearer token-\(valid)" else {
                return ResourceResponse(status: 401, url: request.url, body: Data())
            }
            return ResourceResponse(url: request.url, body: Data(#"{"ok": true}"#.utf8))
        }
        return requester
    }

    // MARK: Header provider per attempt

    @Test func aRetryAfter503CarriesTheTokenRefreshedMeanwhile() async throws {
        let tokens = Tokens()
        let requester = InMemoryRequester()
        await requester.registerRecovering(base + "/flaky", after: 1) { attempt in
            // The token changes while the first attempt is answered.
            if attempt == 1 { await tokens.rotate() }
        }
        _ = try await manager(requester, tokens: tokens, refresh: false).resource(from: Graph.url("/flaky"))
        let sent = await requester.requests.map { $0.headers["Authorization"] }
        #expect(sent == ["Bearer token-1", "Bearer token-2"])
    }

    // MARK: Refresh on 401

    @Test func a401RefreshesOnceThenRetriesWithFreshHeaders() async throws {
        let tokens = Tokens()
        let log = EventLog()
        let requester = await protectedServer(valid: 2)
        let json = try await manager(requester, tokens: tokens, log: log).resource(from: Graph.url("/protected"))
        #expect(json["ok"] == true)
        #expect(await requester.requests.map { $0.headers["Authorization"] } == ["Bearer token-1", "Bearer token-2"])
        #expect(await tokens.refreshes == 1)
        let events = log.all.compactMap { event -> String? in
            switch event {
            case .credentialsRefreshStarted: "started"
            case .credentialsRefreshFinished(_, let error): error == nil ? "finished" : "failed"
            default: nil
            }
        }
        #expect(events == ["started", "finished"])
    }

    @Test func concurrent401sShareOneRefresh() async throws {
        let tokens = Tokens()
        let requester = await protectedServer(valid: 2)
        let manager = manager(requester, tokens: tokens)
        try await withThrowingTaskGroup(of: JSONValue.self) { group in
            for _ in 0..<50 { group.addTask { try await manager.resource(from: Graph.url("/protected")) } }
            for try await json in group { #expect(json["ok"] == true) }
        }
        #expect(await tokens.refreshes == 1, "one refresh for one expiry")
        // A later expiry refreshes again, once.
        let later = await protectedServer(valid: 3)
        let again = self.manager(later, tokens: tokens)
        try await withThrowingTaskGroup(of: JSONValue.self) { group in
            for _ in 0..<20 { group.addTask { try await again.resource(from: Graph.url("/protected")) } }
            for try await json in group { #expect(json["ok"] == true) }
        }
        #expect(await tokens.refreshes == 2)
    }

    @Test func aSecond401AfterRefreshIsTheHTTPError() async throws {
        let tokens = Tokens()
        let requester = await protectedServer(valid: 99)
        await #expect {
            _ = try await manager(requester, tokens: tokens).resource(from: Graph.url("/protected"))
        } throws: { ($0 as? HalleyError)?.httpError?.status == 401 }
        #expect(await requester.requestCount == 2, "the original and one retry")
        #expect(await tokens.refreshes == 1)
    }

    @Test func aFailedRefreshIsReportedWithThe401() async throws {
        let tokens = Tokens()
        await tokens.setFailRefresh()
        let log = EventLog()
        let requester = await protectedServer(valid: 2)
        await #expect {
            _ = try await manager(requester, tokens: tokens, log: log).resource(from: Graph.url("/protected"))
        } throws: { error in
            guard let error = error as? HalleyError else { return false }
            return error.httpError?.status == 401 && error.message.contains("the token endpoint is down")
        }
        #expect(
            log.all.contains {
                if case .credentialsRefreshFinished(_, let error?) = $0 { error.contains("down") } else { false }
            })
    }

    @Test func a401FromAnUntrustedOriginRefreshesNothing() async throws {
        let tokens = Tokens()
        let requester = InMemoryRequester()
        await requester.register(
            base + "/a", json: Graph.resource("/a", links: ["other": Graph.link("https://elsewhere.example/x")]))
        await requester.register("https://elsewhere.example/x") { request in
            ResourceResponse(status: 401, url: request.url, body: Data())
        }
        await #expect {
            _ = try await manager(requester, tokens: tokens).resource(from: Graph.url("/a"), includes: ["other"])
        } throws: { ($0 as? HalleyError)?.httpError?.status == 401 }
        #expect(await tokens.refreshes == 0)
        #expect(await requester.requests.last?.headers["Authorization"] == nil, "no credential went there")
    }

    @Test func actionsRefreshToo() async throws {
        let tokens = Tokens()
        let requester = await protectedServer(valid: 2)
        let response = try await manager(requester, tokens: tokens).send(
            .post, to: Graph.url("/protected"), body: .json(["a": 1]))
        #expect(response.status == 200)
        #expect(await requester.requests.map(\.method) == [.post, .post])
    }
}
