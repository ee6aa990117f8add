import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

extension Reliability {
    /// The standard retry policy against a server that fails 10 % of the attempts with faults
    /// a retry can cure (502, 503 with and without `Retry-After`, resets before and during the
    /// body).
    @Suite struct RetryUnderChaosTests {
        /// Each call: a contact, its website and its company (three requests).
        static let includes: [Include] = ["website", "company"]

        private struct Outcome: Sendable {
            var succeeded = false
            var problem: String?
            var duration: Duration = .zero
        }

        @Test(arguments: Transport.allCases)
        func nearlyEveryCallSucceedsWithCorrectDataAndEveryFailureIsExplained(transport: Transport) async throws {
            let (scale, chaos, run) = try await Reliability.start()
            let manager = ResourceManager.over(try transport.make()) { $0.retryPolicy = .standard }
            let referenceRun = ChaosServer.newRun()
            let fetched = try await Reliability.concurrently(24, width: 24) { index in
                try await manager.resource(
                    from: chaos.url(run: referenceRun, profile: .clean, seed: 0, "contacts/\(index + 1)"),
                    includes: Self.includes)
            }
            let references = Dictionary(uniqueKeysWithValues: fetched.enumerated().map { ($0.offset + 1, $0.element) })
            let expected = references
            let outcomes = try await Reliability.concurrently(scale.retryCalls, width: scale.width * 4) { index in
                let seed = index + 1
                let contact = index % 24 + 1
                let prefix = chaos.prefix(run: run, profile: .transient, seed: seed)
                let url = chaos.url(run: run, profile: .transient, seed: seed, "contacts/\(contact)")
                var outcome = Outcome()
                let clock = ContinuousClock()
                let start = clock.now
                do {
                    let document = try await manager.resource(from: url, includes: Self.includes)
                    outcome.duration = clock.now - start
                    outcome.succeeded = true
                    if let difference = Reliability.firstDifference(document, expected[contact]) {
                        outcome.problem = "seed \(seed): \(difference)"
                    }
                } catch {
                    outcome.duration = clock.now - start
                    // A failure is explained only by a resource whose every attempt failed.
                    let log = try await chaos.settledLog(run: run, profile: .transient, seed: seed)
                    let failed = ContactsGraph.failedResources(log, prefix: prefix)
                    let resource = ((error as? HalleyError)?.url?.path).map { String($0.dropFirst(prefix.count)) }
                    let attempts = log.filter { $0.resource(under: prefix) == resource }.count
                    if resource == nil || failed[resource ?? ""] == nil || attempts < 3 {
                        outcome.problem =
                            "seed \(seed): \(error) is not explained by the server's answers "
                            + "\(log.map { "\($0.resource(under: prefix))#\($0.attempt):\($0.fault)" })"
                    }
                }
                return outcome
            }
            let problems = outcomes.compactMap(\.problem)
            #expect(problems.isEmpty, "\(problems.count) problem(s), first: \(problems.prefix(5))")
            let successes = outcomes.filter(\.succeeded).count
            let rate = Double(successes) / Double(max(1, outcomes.count))
            // Every call the server did not fail three times in a row succeeded (checked above);
            // the share that leaves is the server's draw: 99.5 % over the full run's calls, a
            // looser share over the short run's few (seeded, so always the same draw).
            #expect(
                rate >= scale.minimumRetrySuccessRate,
                "\(successes) of \(outcomes.count) calls succeeded (\(scale.minimumRetrySuccessRate) required)")
            let stats = try await chaos.stats(run: run)
            var latency = LatencyRecord()
            for outcome in outcomes { latency.add(outcome.duration) }
            Reliability.report(
                "retry-transient", transport,
                [
                    ("calls", outcomes.count), ("requests", stats.requests), ("faultsInjected", stats.injected),
                    ("successes", successes), ("successRate", String(format: "%.4f", rate)),
                    ("mismatches", problems.count), ("p50ms", latency.percentile(0.5).inMilliseconds),
                    ("p99ms", latency.percentile(0.99).inMilliseconds),
                ])
            try await chaos.forget(run: run)
        }
    }
}
