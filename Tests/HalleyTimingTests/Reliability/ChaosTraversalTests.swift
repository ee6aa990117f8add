import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

extension Reliability {
    /// Traversals of the contacts graph while the server injects faults: partial results hold
    /// exactly what the server did not fail, fail-fast calls stop at a real failure and close
    /// everything else they had in flight.
    @Suite struct ChaosTraversalTests {
        /// What one traversal showed.
        private struct Check: Sendable {
            var problems: [String] = []
            var failures = 0
            var rootFailed = false
            var duration: Duration = .zero
        }

        @Test(arguments: Transport.allCases)
        func partialResultsAreTheFaultFreeResultLessExactlyWhatTheServerFailed(transport: Transport) async throws {
            let (scale, chaos, run) = try await Reliability.start()
            let manager = ResourceManager(requester: try transport.make())
            let reference = try await Self.faultFreeReference(chaos: chaos, manager: manager)
            try #require(ContactsGraph.referenceProblems(reference) == [])

            let checks = try await Reliability.concurrently(scale.partialTraversals, width: scale.width) { index in
                try await Self.partialTraversal(seed: index + 1, run: run, chaos: chaos, manager: manager, reference)
            }
            try await Self.expectNoProblemsAndReport("chaos-partial", transport, checks, run: run, chaos: chaos) {
                stats -> [(String, Any)] in
                let faults = stats.faults.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }
                return [
                    ("faults", faults.joined(separator: ",")),
                    ("complete", checks.filter { $0.failures == 0 && !$0.rootFailed }.count),
                    ("partial", checks.filter { $0.failures > 0 }.count),
                    ("rootFailed", checks.filter(\.rootFailed).count),
                    ("relationshipsFailed", checks.map(\.failures).reduce(0, +)),
                ]
            }
            try await chaos.forget(run: run)
        }

        /// The contacts graph without faults (a run of its own, clean profile), for the checks
        /// to compare against.
        private static func faultFreeReference(chaos: ChaosServer, manager: ResourceManager) async throws
            -> JSONValue
        {
            try await manager.resource(
                from: chaos.url(run: ChaosServer.newRun(), profile: .clean, seed: 0, "book"),
                includes: ContactsGraph.includes)
        }

        /// Expects no check to have found a problem, and reports the run: the traversals, the
        /// server's requests and faults, the test's own `figures`, the mismatches and the
        /// traversals' latencies.
        private static func expectNoProblemsAndReport(
            _ test: String, _ transport: Transport, _ checks: [Check], run: String, chaos: ChaosServer,
            sourceLocation: SourceLocation = #_sourceLocation, _ figures: (ChaosStats) -> [(String, Any)]
        ) async throws {
            let problems = checks.flatMap(\.problems)
            #expect(
                problems.isEmpty, "\(problems.count) problem(s), first: \(problems.prefix(5))",
                sourceLocation: sourceLocation)
            var latency = LatencyRecord()
            for check in checks { latency.add(check.duration) }
            let stats = try await chaos.stats(run: run)
            var report: [(String, Any)] = [
                ("traversals", checks.count), ("requests", stats.requests), ("faultsInjected", stats.injected),
            ]
            report += figures(stats)
            report += [
                ("mismatches", checks.filter { !$0.problems.isEmpty }.count),
                ("p50ms", latency.percentile(0.5).inMilliseconds),
                ("p99ms", latency.percentile(0.99).inMilliseconds),
            ]
            Reliability.report(test, transport, report)
        }

        private static func partialTraversal(
            seed: Int, run: String, chaos: ChaosServer, manager: ResourceManager, _ reference: JSONValue
        ) async throws -> Check {
            var check = Check()
            let prefix = chaos.prefix(run: run, profile: .mixed, seed: seed)
            let root = chaos.url(run: run, profile: .mixed, seed: seed, "book")
            let outcome: Result<TraversalResult, any Error>
            (outcome, check.duration) = await timedResult {
                try await manager.traverse(root, includes: ContactsGraph.includes)
            }
            let log = try await chaos.settledLog(run: run, profile: .mixed, seed: seed)
            let failed = ContactsGraph.failedResources(log, prefix: prefix)
            /// What the server did with a resource, for messages.
            func served(_ resource: String) -> String {
                let entries = log.filter { $0.resource(under: prefix) == resource }
                return entries.map { "#\($0.attempt)\($0.redirected ? "r" : ""):\($0.fault):\($0.state)" }
                    .joined(separator: " ")
            }
            let result: TraversalResult
            switch outcome {
            case .success(let value):
                result = value
            case .failure(let error):
                // Only the root failing may fail a partial traversal, with the root's fault.
                let rootFault = failed["book"]
                if let error = error as? HalleyError, let rootFault, error.url == root, error.includePath == nil,
                    error.code == ContactsGraph.expectedCode(for: rootFault)
                {
                    check.rootFailed = true
                } else {
                    check.problems.append(
                        "seed \(seed): the traversal threw \(error); the server answered the root \(served("book"))")
                }
                return check
            }
            if let rootFault = failed["book"] {
                check.problems.append("seed \(seed): the root failed (\(rootFault)) yet the traversal returned")
            }
            let expected = ContactsGraph.expected(
                from: reference, root: root, prefix: prefix, failed: Set(failed.keys))
            if let difference = Reliability.firstDifference(result.document, expected.document) {
                check.problems.append("seed \(seed): \(difference)")
            }
            let reported = result.failures.map {
                ContactsGraph.Placement(
                    includePath: $0.includePath ?? "<none>", url: $0.url?.absoluteString ?? "<none>")
            }
            if reported.inOrder != expected.failures.inOrder {
                check.problems.append(
                    "seed \(seed): failures \(reported.inOrder), expected \(expected.failures.inOrder)")
            }
            for failure in result.failures {
                let resource = String((failure.url?.path ?? "").dropFirst(prefix.count))
                if let fault = failed[resource], failure.code != ContactsGraph.expectedCode(for: fault) {
                    check.problems.append("seed \(seed): \(resource) got \(fault) but failed as \(failure.code)")
                } else if failed[resource] == nil {
                    check.problems.append(
                        "seed \(seed): \(resource) failed with \(failure), the server answered \(served(resource))")
                }
            }
            check.problems += ContactsGraph.attachmentProblems(result.document).map { "seed \(seed): \($0)" }
            check.failures = result.failures.count
            return check
        }

        @Test(arguments: Transport.allCases)
        func failFastCallsThrowARealFailureAndCloseEverythingElseInFlight(transport: Transport) async throws {
            let (scale, chaos, run) = try await Reliability.start()
            // A stalled request (30 s) fails on its own after this, so a call whose branches
            // all stall still ends; one that meets a fault first must end well before it.
            let manager = ResourceManager.over(try transport.make()) { $0.requestTimeout = Self.failFastAttemptLimit }
            let reference = try await Self.faultFreeReference(chaos: chaos, manager: manager)
            let checks = try await Reliability.concurrently(scale.failFastTraversals, width: scale.width) { index in
                try await Self.failFastTraversal(seed: index + 1, run: run, chaos: chaos, manager: manager, reference)
            }
            try await Self.expectNoProblemsAndReport("chaos-fail-fast", transport, checks, run: run, chaos: chaos) {
                _ in
                [("threw", checks.filter { $0.failures > 0 }.count)]
            }
            try await chaos.forget(run: run)
        }

        /// The per-attempt limit of the fail-fast calls, far below the server's 30 s stalls.
        private static let failFastAttemptLimit: Duration = .seconds(6)

        private static func failFastTraversal(
            seed: Int, run: String, chaos: ChaosServer, manager: ResourceManager, _ reference: JSONValue
        ) async throws -> Check {
            var check = Check()
            let prefix = chaos.prefix(run: run, profile: .failfast, seed: seed)
            let root = chaos.url(run: run, profile: .failfast, seed: seed, "book")
            let outcome: Result<JSONValue, any Error>
            (outcome, check.duration) = await timedResult {
                try await manager.resource(from: root, includes: ContactsGraph.includes)
            }
            let clock = ContinuousClock()
            // Whatever was still in flight when the call ended must be closed, not left to run
            // out its latency or its 30 s stall.
            var log = try await chaos.log(run: run, profile: .failfast, seed: seed)
            let waitLimit: Duration = .seconds(Sanitizer.isActive ? 10 : 5)
            let waitStart = clock.now
            while log.contains(where: { $0.state == "in-progress" }) && clock.now - waitStart < waitLimit {
                try await Task.sleep(for: .milliseconds(50))
                log = try await chaos.log(run: run, profile: .failfast, seed: seed)
            }
            let lingering = log.filter { $0.state == "in-progress" }.map { $0.resource(under: prefix) }
            if !lingering.isEmpty {
                check.problems.append("seed \(seed): still in progress \(waitLimit) after the call ended: \(lingering)")
            }
            let completedStalls = log.filter { $0.fault == "stall" && $0.state == "completed" }
            if !completedStalls.isEmpty {
                check.problems.append("seed \(seed): stalls answered in full: \(completedStalls.map(\.target))")
            }
            let failed = ContactsGraph.failedResources(log, prefix: prefix)
            let stalled = Set(log.filter { $0.fault == "stall" }.map { $0.resource(under: prefix) })
            switch outcome {
            case .success(let document):
                if let difference = Reliability.firstDifference(document, reference) {
                    check.problems.append("seed \(seed): succeeded with \(difference)")
                }
                if !failed.isEmpty {
                    check.problems.append("seed \(seed): succeeded although the server failed \(failed)")
                }
            case .failure(let error):
                check.failures = 1
                guard let error = error as? HalleyError, let url = error.url else {
                    check.problems.append("seed \(seed): threw \(error), not a failure naming its URL")
                    return check
                }
                let resource = String(url.path.dropFirst(prefix.count))
                let expectedCode: HalleyError.Code? =
                    stalled.contains(resource) && failed[resource] == nil
                    ? .timeout : failed[resource].map(ContactsGraph.expectedCode(for:))
                guard let expectedCode, error.code == expectedCode else {
                    check.problems.append(
                        "seed \(seed): threw \(error.code) for \(resource), which the server answered with "
                            + "\(log.filter { $0.resource(under: prefix) == resource }.map(\.fault))")
                    return check
                }
                if error.includePath == nil {
                    if resource != "book" { check.problems.append("seed \(seed): \(resource) failed without a path") }
                } else {
                    let places = ContactsGraph.expected(
                        from: reference, root: root, prefix: prefix, failed: Set(failed.keys).union(stalled)
                    ).failures
                    let place = ContactsGraph.Placement(includePath: error.includePath ?? "", url: url.absoluteString)
                    if !places.contains(place) {
                        check.problems.append("seed \(seed): \(place) is not where \(resource) belongs: \(places)")
                    }
                }
                if error.code != .timeout && check.duration >= failFastAttemptLimit {
                    check.problems.append("seed \(seed): a fault took \(check.duration) to end the call")
                }
            }
            return check
        }
    }
}
