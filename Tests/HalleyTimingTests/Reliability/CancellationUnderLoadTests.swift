import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

extension Reliability {
    /// Traversals cancelled at random points while a fifth of their requests stall for 30 s:
    /// every caller is answered at once, the server sees every request it was still
    /// answering closed, and nothing is left behind.
    @Suite struct CancellationUnderLoadTests {
        private struct Outcome: Sendable {
            var cancelled = false
            var problem: String?
            var answerTime: Duration = .zero
        }

        @Test(arguments: Transport.allCases)
        func cancelledTraversalsCloseEveryConnectionAndLeaveNothingBehind(transport: Transport) async throws {
            let (scale, chaos, run) = try await Reliability.start()
            let answerBound: Duration = .seconds(Sanitizer.isActive ? 10 : 3)
            let before = (
                sockets: ProcessFigures.sockets(toPort: chaos.port),
                curlThreads: ProcessFigures.threads(named: "halley.curl")
            )
            var baselineRSS = 0
            var midRSS = 0
            var outcomes: [Outcome] = []
            do {
                let manager = ResourceManager(requester: try transport.make())
                // Warm up with a tenth of the cancellations, so the baseline holds what a
                // used manager and the transport's own caches hold; the rest must add nothing.
                let warmUp = max(2, scale.cancellations / 10)
                outcomes = try await Reliability.concurrently(warmUp, width: scale.width * 2) { index in
                    try await Self.cancelOne(index: index, run: run, chaos: chaos, manager: manager, answerBound)
                }
                baselineRSS = ProcessFigures.residentBytes
                // In two halves: memory that grows with the number of cancellations grows in
                // both; what a process settles into does not.
                let half = scale.cancellations / 2
                outcomes += try await Reliability.concurrently(half, width: scale.width * 2) { index in
                    try await Self.cancelOne(
                        index: warmUp + index, run: run, chaos: chaos, manager: manager, answerBound)
                }
                midRSS = ProcessFigures.residentBytes
                outcomes += try await Reliability.concurrently(scale.cancellations - half, width: scale.width * 2) {
                    index in
                    try await Self.cancelOne(
                        index: warmUp + half + index, run: run, chaos: chaos, manager: manager, answerBound)
                }
                // Everything the server was answering when its caller went away must be closed,
                // not left to run out its stall.
                let (stats, settled) = try await chaos.waitForStats(run: run, within: .seconds(10)) {
                    $0.inProgress == 0
                }
                #expect(settled, "\(stats.inProgress) request(s) still in progress on the server")
            }
            // The manager is gone: so must be its connections, on both sides.
            let (stats, closed) = try await chaos.waitForStats(run: run, within: .seconds(10)) {
                $0.openConnections == 0
            }
            #expect(closed, "the server still has \(stats.openConnections) connection(s) of the released manager")
            let socketsClosed = try await ProcessFigures.wait(upTo: .seconds(10)) {
                ProcessFigures.sockets(toPort: chaos.port) <= before.sockets
            }
            #expect(socketsClosed, "\(ProcessFigures.sockets(toPort: chaos.port)) socket(s) to the server remain")
            let problems = outcomes.compactMap(\.problem)
            #expect(problems.isEmpty, "\(problems.count) problem(s), first: \(problems.prefix(5))")
            let afterRSS = ProcessFigures.residentBytes
            let growth = Double(afterRSS - baselineRSS) / Double(max(1, baselineRSS))
            let secondHalfGrowth = Double(afterRSS - midRSS) / Double(max(1, baselineRSS))
            let residentSizes =
                "resident size \(baselineRSS >> 20) MiB, \(midRSS >> 20) MiB half-way, \(afterRSS >> 20) MiB after"
            if scale.isFull {
                // Through URLSessionRequester the second half still adds about 7 % (4 MiB over
                // 250 cancelled traversals, half the first half's), through CurlRequester 1 %:
                // the same engine, so the rest lies in the URLSession transport; not yet located
                // (RELIABILITY.md).
                withKnownIssue("URLSession keeps memory per cancelled transfer", isIntermittent: true) {
                    #expect(secondHalfGrowth <= 0.05, "\(residentSizes)")
                } when: {
                    transport.hasFoundationNetworkingGaps
                }
            } else if scale.isAlone && !Sanitizer.isActive {
                // The short run's few traversals (5 % seen through either transport, alone in
                // the process): memory kept per cancelled traversal would still show.
                #expect(secondHalfGrowth <= 0.25, "\(residentSizes)")
            }
            let curlThreadGone = try await ProcessFigures.wait(upTo: .seconds(10)) {
                ProcessFigures.threads(named: "halley.curl") <= before.curlThreads
            }
            #expect(curlThreadGone, "\(ProcessFigures.threads(named: "halley.curl")) halley.curl threads remain")
            let log = try await Self.stalls(chaos: chaos, run: run, count: outcomes.count)
            #expect(log.completed == 0, "\(log.completed) stalled request(s) were answered in full: nobody closed them")
            var answers = LatencyRecord()
            for outcome in outcomes where outcome.cancelled { answers.add(outcome.answerTime) }
            Reliability.report(
                "cancellation", transport,
                [
                    ("traversals", outcomes.count), ("cancelled", outcomes.filter(\.cancelled).count),
                    ("requests", stats.requests), ("stallsOutstanding", log.closed),
                    ("serverSawClosed", log.clientClosed), ("answerP50ms", answers.percentile(0.5).inMilliseconds),
                    ("answerMaxMs", answers.maximum.inMilliseconds), ("rssBeforeMiB", baselineRSS >> 20),
                    ("rssMidMiB", midRSS >> 20), ("rssAfterMiB", afterRSS >> 20),
                    ("rssGrowth", String(format: "%.3f", growth)),
                    ("rssSecondHalfGrowth", String(format: "%.3f", secondHalfGrowth)),
                    ("problems", problems.count),
                ])
            try await chaos.forget(run: run)
        }

        /// Found under load (issue #26): FoundationNetworking traps ("Trying to access a behaviour
        /// for a task that in not in the registry", from `URLSessionTask.cancel()`) when a
        /// cancellation races the task's completion, as when a failing call cancels its siblings.
        /// Requests to a quick loopback answer, each cancelled within 1 ms of its start (around
        /// its completion), in a process of their own (`halley-transport-probe --cancel-race`),
        /// since a trap ends the process. On the old code the probe crashed in 10 of 10 runs of
        /// 3 s on its own, and this test failed in 2 of 3 runs beside the curl case; since the
        /// fix, no crash.
        @Test(arguments: Transport.allCases)
        func cancellationsRacingCompletionNeverCrashTheProcess(transport: Transport) async throws {
            let server = try await TestServer.isolated()
            let seconds = ReliabilityScale.current.cancelRaceSeconds
            let result = try await ProbeRunner.run(
                [
                    transport.probeName, server.url("/etag/cancel-race?pad=2000").absoluteString, "--cancel-race",
                    "\(seconds)",
                ],
                timeout: .seconds(seconds + 60))
            #expect(result.signal == nil && result.exitStatus == 0, "\(result)")
            #expect(result.outcome == "cancel-race", "\(result)")
            let requests = result.report?["requests"]?.intValue ?? 0
            let cancelled = result.report?["cancelled"]?.intValue ?? 0
            // Every request ends with its answer or a cancellation, never another error.
            #expect(result.report?["failed"]?.intValue == 0, "\(result)")
            // The race ran: many requests, cancelled ones among them.
            #expect(requests >= 100 * seconds && cancelled > 0, "\(result)")
            Reliability.report(
                "cancel-race", transport,
                [
                    ("seconds", seconds), ("requests", requests), ("cancelled", cancelled),
                    ("completed", result.report?["completed"]?.intValue ?? 0),
                ])
        }

        /// One traversal (fail-fast or partial, alternately), cancelled after 0-600 ms.
        private static func cancelOne(
            index: Int, run: String, chaos: ChaosServer, manager: ResourceManager, _ answerBound: Duration
        ) async throws -> Outcome {
            var generator = SeededGenerator(seed: UInt64(index) + 1)
            let delay = Duration.milliseconds(Int.random(in: 0...600, using: &generator))
            let url = chaos.url(run: run, profile: .stall, seed: index + 1, "book")
            let call = Task {
                if index.isMultiple(of: 2) {
                    _ = try await manager.resource(from: url, includes: ContactsGraph.includes)
                } else {
                    _ = try await manager.traverse(url, includes: ContactsGraph.includes)
                }
            }
            try await Task.sleep(for: delay)
            let clock = ContinuousClock()
            let cancelledAt = clock.now
            call.cancel()
            let result = await call.result
            var outcome = Outcome()
            outcome.answerTime = clock.now - cancelledAt
            switch result {
            case .success:
                break  // it finished before the cancellation: allowed
            case .failure(let error) where error is CancellationError:
                outcome.cancelled = true
            case .failure(let error):
                // A fail-fast call may also have failed on its own before the cancellation,
                // but never with anything else than a HalleyError.
                if !(error is HalleyError) { outcome.problem = "traversal \(index): \(error)" }
            }
            if outcome.answerTime > answerBound {
                outcome.problem = "traversal \(index): answered \(outcome.answerTime) after its cancellation"
            }
            return outcome
        }

        /// How the stalled requests ended: closed by the client or answered in full.
        private static func stalls(chaos: ChaosServer, run: String, count: Int) async throws
            -> (closed: Int, clientClosed: Int, completed: Int)
        {
            var closed = 0
            var clientClosed = 0
            var completed = 0
            for seed in 1...max(1, count) {
                let log = try await chaos.log(run: run, profile: .stall, seed: seed)
                for entry in log {
                    if entry.state == "client-closed" { clientClosed += 1 }
                    guard entry.fault == "stall" else { continue }
                    closed += 1
                    if entry.state == "completed" { completed += 1 }
                }
            }
            return (closed, clientClosed, completed)
        }
    }
}
