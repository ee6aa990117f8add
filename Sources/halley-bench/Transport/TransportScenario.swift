import Foundation
import Halley

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The HTTP requesters over loopback against a real server (``LoopbackServer``, in a child
/// process) with a set latency per response, side by side:
///
/// - tree: 40 resources (depth 3, fan-out 3), 100 ms each, maxConcurrency 64: wall / 4 L;
/// - wide: 200 links, 20 ms each, limit 16: wall / ((ceil(200/16) + 1) L);
/// - zero latency: 1,000 links, limit 16: wall and client CPU per request;
/// - idle: client CPU seconds spent while one response takes 500 ms.
struct TransportScenario: Scenario {
    let name = "transport"
    let title = "HTTP requesters over loopback: tree, wide fan-out, cost per request, CPU while waiting"

    /// A requester to measure, made fresh for each part so connections start cold.
    struct Candidate: Sendable {
        let name: String
        let make: @Sendable () -> any RequesterInterface
    }

    static var candidates: [Candidate] {
        var all = [Candidate(name: "urlsession") { URLSessionRequester() }]
        all += extraCandidates
        return all
    }

    func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let server = try BenchServer.start()
        var metrics: [Metric] = []
        var parameters: [(String, String)] = [("server", "thread per connection, HTTP/1.1 keep-alive, 127.0.0.1")]
        let candidates = Self.candidates.filter { settings.requesters.isEmpty || settings.requesters.contains($0.name) }
        guard !candidates.isEmpty else { throw BenchError("no requester named \(settings.requesters)") }
        for candidate in candidates {
            let prefix = candidate.name
            let requester = candidate.make()
            parameters.append((prefix, String(describing: type(of: requester))))
            let manager = ResourceManager(requester: requester)

            // Tree: 40 resources, 4 round trips of 100 ms.
            let treeLatency = 100
            var treeOptions = CallOptions()
            treeOptions.maxConcurrency = 64
            let tree = try server.url("/tree/0?fan=3&depth=3&ms=\(treeLatency)")
            let treeIncludes: [Include] = ["[child].[child].[child]"]
            let first = try await manager.resource(from: tree, includes: treeIncludes, options: treeOptions)
            guard countLeaves(first) == 27 else { throw BenchError("\(prefix): the tree lost leaves") }
            let treeIdeal = 4 * Double(treeLatency) / 1000
            let treeWall = try await Timing.repeated(settings.repetitions, warmups: settings.warmups) {
                _ = try await manager.resource(from: tree, includes: treeIncludes, options: treeOptions)
            }
            metrics.append(
                .measured(
                    "\(prefix)_tree_ratio", "\(prefix): 40-resource tree, 100 ms, limit 64: wall / 4 L",
                    unit: .ratio, treeWall.map { $0 / treeIdeal }, target: .atMost(1.10)))

            // Wide: 200 links at 20 ms, 16 at a time.
            let count = 200
            let limit = 16
            let wideLatency = 20
            var wideOptions = CallOptions()
            wideOptions.maxConcurrency = limit
            wideOptions.maxRequests = 5_000
            // The wide and zero-latency parts check every call the same way: one that lost an item
            // would time less work, so it fails the run instead.
            func checkItems(_ document: JSONValue, count: Int, part: String) throws {
                guard document["items"]?.arrayValue?.count == count else {
                    throw BenchError("\(prefix): \(part) lost items")
                }
            }
            let wide = try server.url("/wide?n=\(count)&ms=\(wideLatency)")
            let wideIdeal = Double((count + limit - 1) / limit + 1) * Double(wideLatency) / 1000
            let wideWall = try await Timing.repeated(settings.repetitions, warmups: settings.warmups) {
                let document = try await manager.resource(from: wide, includes: ["[items]"], options: wideOptions)
                try checkItems(document, count: count, part: "wide")
            }
            metrics.append(
                .measured(
                    "\(prefix)_wide_ratio",
                    "\(prefix): 200 links, 20 ms, limit 16: wall / ((ceil(200/16)+1) L)",
                    unit: .ratio, wideWall.map { $0 / wideIdeal }, target: .atMost(1.20)))

            // Zero latency: 1,000 links, cost per request (wall and client CPU).
            let many = settings.pick(full: 1_000, quick: 300)
            let zero = try server.url("/wide?n=\(many)&ms=0")
            var cpu: [Double] = []
            let zeroWall = try await Timing.repeated(settings.repetitions, warmups: settings.warmups) {
                let before = ProcessCPU.seconds()
                let document = try await manager.resource(from: zero, includes: ["[items]"], options: wideOptions)
                cpu.append((ProcessCPU.seconds() - before) / Double(many + 1))
                try checkItems(document, count: many, part: "zero")
            }
            metrics.append(
                .measured(
                    "\(prefix)_zero_latency_per_request",
                    "\(prefix): \(many) links, no latency, limit 16: wall per request",
                    unit: .seconds, zeroWall.map { $0 / Double(many + 1) }, target: .atMost(100e-6)))
            metrics.append(
                .measured(
                    "\(prefix)_zero_latency_cpu_per_request",
                    "\(prefix): the same, client CPU per request", unit: .seconds,
                    Samples(Array(cpu.dropFirst(settings.warmups)))))

            // Idle: CPU burnt while a response takes 500 ms.
            let slow = try server.url("/item/slow?ms=500")
            var idle: [Double] = []
            for _ in 0..<settings.pick(full: 3, quick: 1) {
                let before = ProcessCPU.seconds()
                // Through the manager, so the request carries its default 60 s timeout.
                _ = try await ResourceManager(requester: candidate.make()).resource(from: slow)
                idle.append(ProcessCPU.seconds() - before)
            }
            metrics.append(
                .measured(
                    "\(prefix)_idle_cpu", "\(prefix): client CPU while one response takes 500 ms",
                    unit: .seconds, Samples(idle), target: .atMost(0.05)))
        }
        _ = server
        return ScenarioResult(name: name, title: title, parameters: parameters, metrics: metrics)
    }

    /// Leaves of the merged tree: `child` arrays three levels down.
    private func countLeaves(_ document: JSONValue) -> Int {
        var count = 0
        for one in document["child"]?.arrayValue ?? [] {
            for two in one["child"]?.arrayValue ?? [] {
                count += two["child"]?.arrayValue?.count ?? 0
            }
        }
        return count
    }
}
