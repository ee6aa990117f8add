import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// `AuthenticationTests` against the clock: a call's deadline also bounds its wait for a
/// credential refresh.
@Suite struct AuthenticationDeadlineTests {
    /// `/protected` answers 200 only to `Bearer token-<valid>`.
    private func protectedServer(valid: Int) async -> InMemoryRequester {
        let requester = InMemoryRequester()
        await requester.register(Graph.base + "/protected") { request in
            guard request.headers["Authorization"] == "Bearer token-\(valid)" else {
                return ResourceResponse(status: 401, url: request.url, body: Data())
            }
            return ResourceResponse(url: request.url, body: Data(#"{"ok": true}"#.utf8))
        }
        return requester
    }

    /// Found by the reliability suites (issue #19): a call waiting for a slow refresh used to
    /// wait for all of it, deadline or not.
    @Test func aCallStopsWaitingForASlowRefreshWhenItsDeadlinePasses() async throws {
        let requester = await protectedServer(valid: 2)
        let refreshed = LockedValue(false)
        var configuration = ResourceManager.Configuration()
        configuration.headerProvider = { ["Authorization": "Bearer token-\(refreshed.get() ? 2 : 1)"] }
        configuration.refreshCredentials = {
            try await Task.sleep(for: .seconds(120))  // a token endpoint that hangs
            refreshed.set(true)
        }
        var deadline = CallOptions()
        deadline.deadline = .milliseconds(300)
        let options = deadline
        struct Outcome: Sendable {
            var refreshStarted: Bool
            var elapsed: Duration
        }
        // The 401 must arrive within the 300 ms deadline for a refresh to start; a run in which
        // the process could not run queued work for a tenth of that is repeated (StallMonitor).
        func scenario() async throws -> Outcome {
            let log = EventLog()
            var observed = configuration
            observed.observer = log.observer
            let manager = ResourceManager(requester: requester, configuration: observed)
            let clock = ContinuousClock()
            let start = clock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        await #expect {
                            _ = try await manager.resource(from: Graph.url("/protected"), options: options)
                        } throws: { ($0 as? HalleyError)?.code == .timeout }
                    }
                }
                try await group.waitForAll()
            }
            return Outcome(
                refreshStarted: log.all.contains { if case .credentialsRefreshStarted = $0 { true } else { false } },
                elapsed: clock.now - start)
        }
        let (outcome, allRunsStalled) = try await StallMonitor.calmRun(
            tolerance: .milliseconds(100), isCalm: { $0.refreshStarted }, scenario: scenario)
        // Far less than the refresh's 120 s, with room for a loaded machine under a sanitizer
        // (12 s was seen there with 10 s allowed).
        #expect(outcome.elapsed < .seconds(60))
        if !allRunsStalled { #expect(outcome.refreshStarted) }
    }
}
