import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// `AppErrorTests`' timeouts: each says which limit passed, its value and how many attempts.
@Suite struct TimeoutMessageTests {
    let base = Graph.base

    private func error(_ call: () async throws -> some Any) async -> HalleyError? {
        await halleyError(of: call)
    }

    @Test func timeoutsSayWhichLimitItsValueAndHowManyAttempts() async throws {
        let requester = InMemoryRequester()
        await requester.register(base + "/slow", json: ["x": 1], latency: .seconds(30))
        var configuration = ResourceManager.Configuration()
        configuration.requestTimeout = .milliseconds(50)
        configuration.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1))
        let manager = ResourceManager(requester: requester, configuration: configuration)
        let perAttempt = try #require(await error { try await manager.resource(from: Graph.url("/slow")) })
        #expect(perAttempt.code == .timeout)
        #expect(
            perAttempt.message
                == "no response from api.example.com within 50 ms, the time allowed for each attempt (after 3 attempts)"
        )

        var options = CallOptions()
        options.deadline = .milliseconds(100)
        options.requestTimeout = .seconds(30)
        options.retryPolicy = RetryPolicy.none
        let whole = try #require(await error { try await manager.resource(from: Graph.url("/slow"), options: options) })
        #expect(whole.code == .timeout)
        #expect(whole.message == "the whole call ran out of its 100 ms deadline with 1 request pending: \(base)/slow")
    }
}
