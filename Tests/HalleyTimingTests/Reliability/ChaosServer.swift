import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The chaos server (`HalleyTestSupport/chaos_http_server.py`): the contacts graph under
/// `/r/<run>/<profile>/<seed>/`, with faults decided from (profile, seed, resource, attempt),
/// and the control routes that tell a test what it injected.
///
/// ```swift
/// let chaos = try await ChaosServer.shared()
/// let run = ChaosServer.newRun()
/// let url = chaos.url(run: run, profile: .mixed, seed: 7, "book")
/// let log = try await chaos.log(run: run, profile: .mixed, seed: 7)
/// ```
struct ChaosServer: Sendable {
    /// What the server does to requests (see the script's documentation).
    enum Profile: String, Sendable {
        case clean, mixed, transient, stall, deadline, failfast, auth, soak, cacheable, faulty
    }

    let server: TestServer

    /// The one chaos server of this test process.
    static func shared() async throws -> ChaosServer {
        ChaosServer(server: try await TestServer.chaos(lifetime: ReliabilityScale.current.serverLifetime))
    }

    /// A name no other test uses: connections, counters and the log are kept per run.
    static func newRun() -> String {
        String(UUID().uuidString.prefix(8)).lowercased()
    }

    /// The port the server listens on.
    var port: Int { server.port }

    /// `/r/<run>/<profile>/<seed>/`.
    func prefix(run: String, profile: Profile, seed: Int) -> String {
        "/r/\(run)/\(profile.rawValue)/\(seed)/"
    }

    /// The URL of a resource of the graph (`book`, `contacts/3`, ...).
    func url(run: String, profile: Profile, seed: Int, _ resource: String) -> URL {
        server.url(prefix(run: run, profile: profile, seed: seed) + resource)
    }

    // MARK: Control routes

    /// Every request the server received under the seed's prefix, in arrival order.
    func log(run: String, profile: Profile, seed: Int) async throws -> [ChaosLogEntry] {
        struct Log: Decodable { let entries: [ChaosLogEntry] }
        let path = "/_log?prefix=" + TestServer.queryValue(prefix(run: run, profile: profile, seed: seed))
        return try decode(Log.self, from: try await control(path)).entries
    }

    /// ``log(run:profile:seed:)`` once no request under the prefix is in progress (up to
    /// `limit`): the server marks a request completed just after its last byte went out, so a
    /// client can hold the answer before the log says it was sent.
    func settledLog(run: String, profile: Profile, seed: Int, within limit: Duration = .seconds(10)) async throws
        -> [ChaosLogEntry]
    {
        let clock = ContinuousClock()
        let end = clock.now + limit
        while true {
            let log = try await log(run: run, profile: profile, seed: seed)
            if !log.contains(where: { $0.state == "in-progress" }) || clock.now >= end { return log }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The run's counters and open connections.
    func stats(run: String) async throws -> ChaosStats {
        try decode(ChaosStats.self, from: try await control("/_stats?run=\(run)"))
    }

    /// Issues a new token for the run's `auth` profile (the previous one stops working),
    /// answering after `delay`.
    func issueToken(run: String, delay: Duration = .zero) async throws -> String {
        struct Token: Decodable { let token: String }
        let path = "/_token?run=\(run)&delayMs=\(delay.inMilliseconds)"
        return try decode(Token.self, from: try await control(path)).token
    }

    /// Makes the run's current token stop working, as if it had expired.
    func expireToken(run: String) async throws {
        _ = try await control("/_expire?run=\(run)")
    }

    /// How many tokens were issued for the run, and how many distinct ones were refused after
    /// they expired (each such token is one expiry the client saw).
    func tokens(run: String) async throws -> (issued: Int, rejected: Int) {
        struct Tokens: Decodable {
            let issued: Int
            let rejectedTokens: Int
        }
        let tokens = try decode(Tokens.self, from: try await control("/_tokens?run=\(run)"))
        return (tokens.issued, tokens.rejectedTokens)
    }

    /// Drops the run's log and counters (long runs keep the server's memory small).
    func forget(run: String) async throws {
        _ = try await control("/_forget?run=\(run)")
    }

    /// Waits until `condition` holds for the run's counters, up to `limit`; returns the last
    /// counters read and whether the condition held.
    func waitForStats(run: String, within limit: Duration, until condition: (ChaosStats) -> Bool) async throws
        -> (ChaosStats, Bool)
    {
        let clock = ContinuousClock()
        let end = clock.now + limit
        while true {
            let stats = try await stats(run: run)
            if condition(stats) { return (stats, true) }
            if clock.now >= end { return (stats, false) }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private static let session = URLSession(configuration: .ephemeral)

    private func control(_ path: String) async throws -> Data {
        var request = URLRequest(url: server.url(path))
        request.timeoutInterval = 30
        // One connection per question: the tests count the sockets open to this port.
        request.setValue("close", forHTTPHeaderField: "Connection")
        let (data, response) = try await Self.session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw TestServerError("\(path) did not answer 200: \(response)")
        }
        return data
    }

    private func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw TestServerError("cannot decode the chaos server's answer: \(error)")
        }
    }
}

/// One request the chaos server received, as `/_log` lists it.
struct ChaosLogEntry: Sendable, Decodable {
    /// The path without the query.
    let path: String
    /// Path and query as sent.
    let target: String
    /// 1 for the first request for ``target``.
    let attempt: Int
    /// `ok`, `redirect`, `stall`, `status-500`, `status-502`, `status-503`,
    /// `status-503-retry-after`, `reset-before-body`, `reset-during-body`, `truncated-json`
    /// or `status-401`.
    let fault: String
    let latencyMs: Int
    /// `in-progress`, `completed` or `client-closed`.
    let state: String
    /// Whether this is the target of a redirect (always answered correctly).
    let redirected: Bool

    /// Whether the client, having received this answer in full, cannot have the resource
    /// from it (a redirect leads to a correct answer; a stall answers correctly, late).
    var isFailing: Bool { !["ok", "redirect", "stall"].contains(fault) }

    /// The resource relative to the seed's prefix (`contacts/3`).
    func resource(under prefix: String) -> String {
        path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}

/// A run's counters on the chaos server.
struct ChaosStats: Sendable, Decodable {
    /// Connections open now whose first request belonged to the run.
    let openConnections: Int
    /// The run's requests the server has not finished answering.
    let inProgress: Int
    /// The run's requests so far.
    let requests: Int
    /// How many of them got each fault (`ok` included).
    let faults: [String: Int]

    /// Requests that got a fault other than a plain answer.
    var injected: Int { faults.filter { $0.key != "ok" }.values.reduce(0, +) }
}
