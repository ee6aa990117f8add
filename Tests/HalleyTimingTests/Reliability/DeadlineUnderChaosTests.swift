import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

extension Reliability {
    /// Call deadlines against a server that is slow (0-200 ms a request), stalls (30 s) and
    /// fails, with retries on: a call ends by its deadline, whatever it was waiting for at
    /// the time (a request, a retry's pause, a shared request another branch sent).
    @Suite struct DeadlineUnderChaosTests {
        private struct Outcome: Sendable {
            var overshoot: Duration = .zero
            var timedOut = false
            var problem: String?
        }

        @Test(arguments: Transport.allCases)
        func noCallOutlivesItsDeadline(transport: Transport) async throws {
            let (scale, chaos, run) = try await Reliability.start()
            let manager = ResourceManager.over(try transport.make()) { $0.retryPolicy = .standard }
            let outcomes = try await Reliability.concurrently(scale.deadlineCalls, width: scale.width) { index in
                // Deadlines from 100 ms to about 1 s, so calls end at every stage of a traversal.
                let deadline = Duration.milliseconds(100 + (index * 337) % 900)
                var options = CallOptions()
                options.deadline = deadline
                let url = chaos.url(run: run, profile: .deadline, seed: index + 1, "book")
                let clock = ContinuousClock()
                let start = clock.now
                var (outcome, stall) = await StallMonitor.measure {
                    var outcome = Outcome()
                    do {
                        _ = try await manager.traverse(url, includes: ContactsGraph.includes, options: options)
                    } catch let error as HalleyError {
                        outcome.timedOut = error.code == .timeout && error.includePath == nil
                    } catch {
                        outcome.problem = "call \(index): \(error) is neither a result nor a HalleyError"
                    }
                    return outcome
                }
                let elapsed = clock.now - start
                outcome.overshoot = max(.zero, elapsed - deadline)
                if outcome.overshoot > scale.allowedOvershoot(stall: stall) {
                    outcome.problem =
                        "call \(index): ran \(elapsed) with a deadline of \(deadline) (longest stall \(stall))"
                }
                return outcome
            }
            let problems = outcomes.compactMap(\.problem)
            #expect(problems.isEmpty, "\(problems.count) problem(s), first: \(problems.prefix(5))")
            var overshoot = LatencyRecord()
            for outcome in outcomes where outcome.timedOut { overshoot.add(outcome.overshoot) }
            let timedOut = outcomes.filter(\.timedOut).count
            #expect(timedOut > 0, "no call reached its deadline: the test proves nothing")
            let stats = try await chaos.stats(run: run)
            Reliability.report(
                "deadline", transport,
                [
                    ("calls", outcomes.count), ("timedOut", timedOut), ("requests", stats.requests),
                    ("faultsInjected", stats.injected), ("overshootP50ms", overshoot.percentile(0.5).inMilliseconds),
                    ("overshootP99ms", overshoot.percentile(0.99).inMilliseconds),
                    ("overshootMaxMs", overshoot.maximum.inMilliseconds),
                    ("boundMs", scale.deadlineOvershoot.inMilliseconds),
                ])
            try await chaos.forget(run: run)
        }

        @Test(arguments: Transport.allCases)
        func aCallDoesNotWaitPastItsDeadlineForASlowCredentialRefresh(transport: Transport) async throws {
            let (scale, chaos, run) = try await Reliability.start()
            let tokens = ChaosTokens(try await chaos.issueToken(run: run))
            try await chaos.expireToken(run: run)
            var configuration = ResourceManager.Configuration()
            configuration.headerProvider = { ["Authorization": "Bearer \(tokens.current)"] }
            // The token endpoint takes 3 s: callers whose deadline passes meanwhile stop waiting.
            configuration.refreshCredentials = {
                tokens.replace(with: try await chaos.issueToken(run: run, delay: .seconds(3)))
            }
            let manager = ResourceManager(requester: try transport.make(), configuration: configuration)
            let deadline = Duration.milliseconds(400)
            let outcomes = try await Reliability.concurrently(8, width: 8) { index -> (String?, Duration, Duration) in
                var options = CallOptions()
                options.deadline = deadline
                let clock = ContinuousClock()
                let start = clock.now
                let (problem, stall) = await StallMonitor.measure { () async -> String? in
                    do {
                        _ = try await manager.resource(
                            from: chaos.url(run: run, profile: .auth, seed: 1, "contacts/\(index + 1)"),
                            options: options)
                        return "succeeded"
                    } catch let error as HalleyError where error.code == .timeout {
                        return nil
                    } catch {
                        return "\(error)"
                    }
                }
                return (problem, clock.now - start, stall)
            }
            var overshoot = LatencyRecord()
            for (problem, elapsed, stall) in outcomes {
                #expect(problem == nil, "not a timeout: \(problem ?? "")")
                overshoot.add(max(.zero, elapsed - deadline))
                #expect(
                    elapsed - deadline <= scale.allowedOvershoot(stall: stall),
                    "ran \(elapsed) with a deadline of \(deadline) (longest stall \(stall))")
            }
            Reliability.report(
                "deadline-slow-refresh", transport,
                [
                    ("calls", outcomes.count), ("overshootP50ms", overshoot.percentile(0.5).inMilliseconds),
                    ("overshootMaxMs", overshoot.maximum.inMilliseconds),
                ])
        }
    }
}
