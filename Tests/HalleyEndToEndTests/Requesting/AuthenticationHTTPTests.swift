import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// `AuthenticationTests` over loopback HTTP: the header provider is asked for every attempt,
/// and a `401` refreshes credentials once, then retries once.
@Suite struct AuthenticationHTTPTests {
    /// A token store: `current()` is what the provider sends, `refresh()` issues a new one.
    actor Tokens {
        private(set) var current = 1
        private(set) var refreshes = 0
        func value() -> String { "token-\(current)" }
        func rotate() { current += 1 }
        func refresh() async throws {
            refreshes += 1
            current += 1
        }
    }

    private func manager(_ requester: any RequesterInterface & Sendable, tokens: Tokens) -> ResourceManager {
        var configuration = ResourceManager.Configuration()
        configuration.headerProvider = { ["Authorization": "Bearer \(await tokens.value())"] }
        configuration.refreshCredentials = { try await tokens.refresh() }
        configuration.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1))
        return ResourceManager(requester: requester, configuration: configuration)
    }

    @Test func overHTTPARetryAfter503CarriesARefreshedTokenAndA401RefreshesAndRetries() async throws {
        let server = try await TestServer.shared()
        let tokens = Tokens()
        let manager = manager(URLSessionRequester(), tokens: tokens)
        let id = UUID().uuidString
        // 503 first; meanwhile the token rotates; the retry must carry the new one.
        var options = CallOptions()
        options.configureRequest = { request in
            if request.headers["Authorization"] == "Bearer token-1" { await tokens.rotate() }
        }
        let flaky = try await manager.resource(from: server.url("/flaky?id=\(id)&failures=1"), options: options)
        #expect(flaky["authorization"] == "Bearer token-2")
        let sent = try await server.requests(containing: id).map { $0.headers["authorization"] }
        #expect(sent == ["Bearer token-1", "Bearer token-2"])

        // token-2 is now stale; the server wants token-3: one 401, one refresh, one retry.
        let protected = try await manager.resource(from: server.url("/protected?token=token-3&m=\(id)"))
        #expect(protected["ok"] == true)
        #expect(
            try await server.requests(containing: "m=\(id)").map { $0.headers["authorization"] }
                == ["Bearer token-2", "Bearer token-3"])
        #expect(await tokens.refreshes == 1)
    }
}
