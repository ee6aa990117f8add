import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// The per-attempt time limit (`requestTimeout`) under many attempts at once: every attempt
/// of a call shares one watchdog, so these check that it cancels exactly the overdue
/// attempts, lets the others through, and starts again for later attempts and calls. The
/// requester ignores the limit (``LimitIgnoringRequester``), so only the watchdog enforces it.
@Suite struct AttemptTimeoutTests {
    /// Long enough that a fast answer on a loaded machine (ThreadSanitizer, 2 cores) is never
    /// overdue; the slow routes take far longer than this, so only they can be.
    static let limit = Duration.seconds(2)
    static let slow = Duration.seconds(120)

    /// Records which requests saw their task cancelled.
    actor Cancellations {
        var urls: Set<String> = []
        func add(_ url: String) { urls.insert(url) }
    }

    /// A root linking `count` items; every `slowEvery`-th item takes ``slow`` unless cancelled.
    func fanOut(count: Int, slowEvery: Int, cancellations: Cancellations) async -> InMemoryRequester {
        let requester = InMemoryRequester()
        let links = (0..<count).map { Graph.link("/items/\($0)") }
        await requester.register(
            Graph.base + "/root", json: Graph.resource("/root", links: ["items": .array(links)]))
        for index in 0..<count {
            let path = "/items/\(index)"
            let document = Graph.resource(path, ["index": .int(index)]).serialized()
            let isSlow = index % slowEvery == 0
            await requester.register(Graph.base + path) { request in
                if isSlow {
                    do {
                        try await Task.sleep(for: Self.slow)
                    } catch {
                        await cancellations.add(request.url.absoluteString)
                        throw error
                    }
                }
                return ResourceResponse(url: request.url, body: document)
            }
        }
        return requester
    }

    func manager(_ requester: InMemoryRequester, retry: RetryPolicy? = nil, limit: Duration = Self.limit)
        -> ResourceManager
    {
        var configuration = ResourceManager.Configuration()
        configuration.requestTimeout = limit
        if let retry { configuration.retryPolicy = retry }
        return ResourceManager(requester: LimitIgnoringRequester(base: requester), configuration: configuration)
    }

    /// What one fan-out call of ``onlyTheOverdueAttemptsOfAFanOutTimeOutAndAreCancelled()`` gave.
    struct FanOutOutcome: Sendable {
        var failedURLs: Set<String>
        var failuresAreAttemptTimeouts: Bool
        var merged: [Int]
        var cancelledURLs: Set<String>
    }

    @Test func onlyTheOverdueAttemptsOfAFanOutTimeOutAndAreCancelled() async throws {
        let slowURLs = Set(stride(from: 0, to: 60, by: 5).map { Graph.base + "/items/\($0)" })
        // An instant answer misses the limit only when queued work waited long in the process
        // (other suites, a sanitizer); such a run is repeated (StallMonitor), a wrong watchdog
        // fails every run.
        func scenario() async throws -> FanOutOutcome {
            let cancellations = Cancellations()
            let requester = await fanOut(count: 60, slowEvery: 5, cancellations: cancellations)
            var options = CallOptions()
            options.maxConcurrency = 64
            let result = try await manager(requester).traverse(
                Graph.url("/root"), plan: IncludePlan(paths: ["[items]"]), options: options)
            return FanOutOutcome(
                failedURLs: Set(result.failures.compactMap { $0.url?.absoluteString }),
                failuresAreAttemptTimeouts: result.failures.allSatisfy {
                    $0.code == .timeout && $0.message.contains("the time allowed for each attempt")
                },
                merged: result.document["items"]?.arrayValue?.compactMap { $0["index"]?.intValue } ?? [],
                cancelledURLs: await cancellations.urls)
        }
        let (outcome, stalled) = try await StallMonitor.calmRun(
            tolerance: Self.limit / 10, isCalm: { $0.failedURLs == slowURLs }, scenario: scenario)

        #expect(outcome.failuresAreAttemptTimeouts)
        #expect(slowURLs.isSubset(of: outcome.failedURLs))
        #expect(outcome.cancelledURLs.isSubset(of: slowURLs))
        if stalled {
            print("AttemptTimeoutTests: every run stalled; which attempts ran in time is not checked")
        } else {
            #expect(outcome.failedURLs == slowURLs)
            #expect(outcome.merged == (0..<60).filter { $0 % 5 != 0 })
            #expect(outcome.cancelledURLs == slowURLs, "every overdue attempt's task was cancelled")
        }
    }

    @Test func laterCallsOnTheSameManagerAreTimedAgain() async throws {
        let cancellations = Cancellations()
        let requester = await fanOut(count: 2, slowEvery: 2, cancellations: cancellations)
        let manager = manager(requester)
        for round in 1...3 {
            // Item 0 is slow, item 1 fast: each call's watchdog must start again after the
            // previous call stopped it.
            await #expect(throws: HalleyError.self, "round \(round)") {
                try await manager.resource(from: Graph.url("/items/0"))
            }
            #expect(try await fastIndex(manager) == 1)
        }
        #expect(await cancellations.urls == [Graph.base + "/items/0"])
    }

    /// The fast item's index, fetched again when the process stalled past the limit (see
    /// ``StallMonitor``): only a timeout without a stall counts against the watchdog.
    func fastIndex(_ manager: ResourceManager) async throws -> Int? {
        try await StallMonitor.retryingStalls(tolerance: Self.limit / 10) {
            try await manager.resource(from: Graph.url("/items/1"))["index"]?.intValue
        }
    }

    @Test func anAttemptAfterATimedOutOneGetsItsOwnFullLimit() async throws {
        // The first attempt hangs and times out; the retry answers after a second, so it
        // passes only if its deadline counts from its own start (a deadline shared with the
        // first attempt would already have passed). The limit leaves five seconds of margin
        // for a loaded machine.
        let limit = Duration.seconds(6)
        let attempts = LockedValue(0)
        let requester = InMemoryRequester()
        let document = Graph.resource("/flaky", ["ok": true]).serialized()
        await requester.register(Graph.base + "/flaky") { request in
            let attempt = attempts.withLock { count -> Int in
                count += 1
                return count
            }
            try await Task.sleep(for: attempt == 1 ? Self.slow : .seconds(1))
            return ResourceResponse(url: request.url, body: document)
        }
        let retry = RetryPolicy(maxAttempts: 2, baseDelay: .zero, jitter: 0)
        let resource = try await manager(requester, retry: retry, limit: limit).resource(from: Graph.url("/flaky"))
        #expect(resource["ok"]?.boolValue == true)
        #expect(attempts.get() == 2)
    }

    @Test func aTimeoutInOneCallDoesNotReachAnotherCallRunningAtTheSameTime() async throws {
        let cancellations = Cancellations()
        let requester = await fanOut(count: 2, slowEvery: 2, cancellations: cancellations)
        let manager = manager(requester)
        let slow = Task { try await manager.resource(from: Graph.url("/items/0")) }
        // Many fast calls while the slow one waits for its limit.
        for _ in 0..<200 {
            #expect(try await fastIndex(manager) == 1)
        }
        await #expect(throws: HalleyError.self) { _ = try await slow.value }
        #expect(await cancellations.urls == [Graph.base + "/items/0"])
    }
}
