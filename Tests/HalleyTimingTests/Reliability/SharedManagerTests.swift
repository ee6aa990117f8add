import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

extension Reliability {
    /// Many callers at once through one manager, one cache and one token provider; the token
    /// has expired when each round's callers start, so they all meet a `401` together.
    @Suite struct SharedManagerTests {
        static let includes: [Include] = ["website", "company.headquarters"]

        @Test(arguments: Transport.allCases)
        func everyCallerGetsItsOwnDataAndEachExpiryIsRefreshedOnce(transport: Transport) async throws {
            let (scale, chaos, run) = try await Reliability.start()
            let references = try await Self.references(chaos: chaos, transport: transport)
            let tokens = ChaosTokens(try await chaos.issueToken(run: run))
            var configuration = ResourceManager.Configuration()
            configuration.cache = ResponseCache(maximumBytes: 1_000_000)
            configuration.headerProvider = { ["Authorization": "Bearer \(tokens.current)"] }
            configuration.refreshCredentials = {
                tokens.replace(with: try await chaos.issueToken(run: run))
            }
            let manager = ResourceManager(requester: try transport.make(), configuration: configuration)
            var problems: [String] = []
            var latency = LatencyRecord()
            for round in 1...scale.callerRounds {
                try await chaos.expireToken(run: run)
                let outcomes = try await Reliability.concurrently(scale.callers, width: scale.callers) { caller in
                    let contact = (caller * 7 + round) % 24 + 1
                    let url = chaos.url(run: run, profile: .auth, seed: round, "contacts/\(contact)")
                    let clock = ContinuousClock()
                    let start = clock.now
                    do {
                        let document = try await manager.resource(from: url, includes: Self.includes)
                        let problem = Reliability.firstDifference(document, references[contact]).map {
                            "round \(round) caller \(caller) (contact \(contact)): \($0)"
                        }
                        return (problem, clock.now - start)
                    } catch {
                        return ("round \(round) caller \(caller) (contact \(contact)): \(error)", clock.now - start)
                    }
                }
                problems += outcomes.compactMap(\.0)
                for outcome in outcomes { latency.add(outcome.1) }
            }
            #expect(problems.isEmpty, "\(problems.count) problem(s), first: \(problems.prefix(5))")
            let (issued, rejected) = try await chaos.tokens(run: run)
            #expect(rejected == scale.callerRounds, "\(rejected) tokens refused after \(scale.callerRounds) expiries")
            #expect(
                tokens.refreshes == scale.callerRounds,
                "\(tokens.refreshes) refreshes for \(scale.callerRounds) expiries")
            #expect(issued == tokens.refreshes + 1)
            let stats = try await chaos.stats(run: run)
            Reliability.report(
                "shared-manager", transport,
                [
                    ("callers", scale.callers * scale.callerRounds), ("requests", stats.requests),
                    ("unauthorized", stats.faults["status-401"] ?? 0), ("expiries", rejected),
                    ("refreshes", tokens.refreshes), ("mismatches", problems.count),
                    ("p50ms", latency.percentile(0.5).inMilliseconds),
                    ("p99ms", latency.percentile(0.99).inMilliseconds),
                ])
            try await chaos.forget(run: run)
        }

        /// Each contact with its includes, fault-free and without credentials.
        private static func references(chaos: ChaosServer, transport: Transport) async throws -> [Int: JSONValue] {
            let run = ChaosServer.newRun()
            let manager = ResourceManager(requester: try transport.make())
            var references: [Int: JSONValue] = [:]
            for contact in 1...24 {
                references[contact] = try await manager.resource(
                    from: chaos.url(run: run, profile: .soak, seed: 0, "contacts/\(contact)"), includes: includes)
            }
            try await chaos.forget(run: run)
            return references
        }
    }
}
