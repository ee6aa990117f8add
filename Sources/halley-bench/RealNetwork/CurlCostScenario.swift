import Foundation
import Halley

/// The unit of the per-request instruction counts in BENCHMARKS.md for issue #28: one side
/// (Halley's `CurlRequester`, or raw libcurl) fetching nginx's 1,000-item list and its items
/// over one protocol, with nothing else in the process.
///
/// The `nginx` scenario runs both sides and three parts in one process, whose threads each
/// do some of everything, so a profile of it cannot say what one request costs. Here every
/// call is the same, and two runs under `valgrind --tool=callgrind` that differ only in their
/// number of calls (`--quick`: 1 + 3, full: 1 + 7) give the instructions of four calls of
/// 1,001 requests, every thread included and set-up excluded. nginx runs in its own process,
/// outside the count.
///
/// `--requester curl` measures Halley only, `--requester raw` libcurl only; both run by
/// default (then the counts add up).
struct CurlCostScenario: Scenario {
    /// HTTP/1.1 keep-alive, or HTTPS with HTTP/2.
    let secure: Bool

    var name: String { secure ? "curl-cost-h2" : "curl-cost-http1" }
    var title: String {
        "One side alone fetching 1,001 resources from nginx over \(secure ? "HTTPS + HTTP/2" : "HTTP/1.1"): "
            + "CPU per request (the unit of the callgrind counts)"
    }

    static let size = 1_000

    func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let sides = settings.requesters.isEmpty ? ["curl", "raw"] : settings.requesters
        for side in sides where side != "curl" && side != "raw" {
            throw BenchError("\(name) measures --requester curl (Halley) or raw (libcurl alone), not \(side)")
        }
        let backend = try BenchServer.start()
        let lab = try NginxLab.start(listSizes: [Self.size], backend: backend)
        defer { lab.stop() }
        let address = secure ? lab.tls : lab.plain
        let root = address("/lists/\(Self.size)")
        let items = (0..<Self.size).map { address("/items/\($0)") }
        let tls = TLSConfiguration(trustRoots: .only([.file(lab.caFile)]))
        let requests = Double(Self.size + 1)
        var metrics: [Metric] = []

        if sides.contains("curl") {
            let requester = try secure ? CurlRequester(tls: tls, proxy: .direct) : CurlRequester(proxy: .direct)
            let manager = ResourceManager(requester: requester)
            var options = CallOptions()
            options.maxConcurrency = 16
            options.maxRequests = 10_000
            guard let rootURL = URL(string: root) else { throw BenchError("bad URL \(root)") }
            let cpu = try await measure(settings) {
                let document = try await manager.resource(from: rootURL, includes: ["[items]"], options: options)
                guard document["items"]?.arrayValue?.count == Self.size else {
                    throw BenchError("\(name): Halley lost items")
                }
            }
            metrics.append(
                .measured(
                    "halley_cpu_per_request", "Halley's CPU per request (all threads)", unit: .seconds,
                    Samples(cpu.map { $0 / requests })))
        }
        if sides.contains("raw") {
            let raw = try RawCurlClient(caFile: secure ? lab.caFile : nil)
            let cpu = try await measure(settings) {
                let first = await raw.fetch([root], limit: 1)
                let rest = await raw.fetch(items, limit: 16)
                guard first.succeeded == 1, rest.succeeded == items.count else {
                    throw BenchError(
                        "\(name): libcurl failed: \(first.firstFailure ?? rest.firstFailure ?? "lost items")")
                }
            }
            metrics.append(
                .measured(
                    "curl_cpu_per_request", "libcurl's CPU per request (all threads)", unit: .seconds,
                    Samples(cpu.map { $0 / requests })))
        }
        _ = backend
        return ScenarioResult(
            name: name, title: title,
            parameters: [
                ("sides", sides.joined(separator: ", ")), ("limit", "16"),
                ("calls", "\(settings.warmups) untimed + \(settings.repetitions) timed"),
            ],
            metrics: metrics)
    }

    /// The CPU time of each timed call of `body`.
    private func measure(_ settings: BenchSettings, _ body: () async throws -> Void) async throws -> [Double] {
        var cpu: [Double] = []
        for repetition in 0..<(settings.warmups + settings.repetitions) {
            let before = ProcessCPU.seconds()
            try await body()
            if repetition >= settings.warmups { cpu.append(ProcessCPU.seconds() - before) }
        }
        return cpu
    }
}
