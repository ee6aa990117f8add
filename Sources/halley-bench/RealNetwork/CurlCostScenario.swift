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
/// default (then the counts add up). `--requester raw-hal` is libcurl alone sending the request
/// head Halley sends: its `Accept` and `User-Agent` lines, and the `Accept-Encoding` line naming
/// every encoding this libcurl decodes, with decoding on (`curl -H 'Accept: …' -A 'Halley/…'
/// -H 'Accept-Encoding: …' --compressed`), so the difference to Halley is Halley's own work.
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
        for side in sides where !["curl", "raw", "raw-hal"].contains(side) {
            throw BenchError(
                "\(name) measures --requester curl (Halley), raw (libcurl alone) or raw-hal (libcurl alone "
                    + "sending Halley's Accept, User-Agent and Accept-Encoding), not \(side)")
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
        for side in sides where side.hasPrefix("raw") {
            let raw =
                side == "raw"
                ? try RawCurlClient(caFile: secure ? lab.caFile : nil)
                : try RawCurlClient(
                    caFile: secure ? lab.caFile : nil, headerLines: try await Self.halleysRequestHeadLines(),
                    decodesResponses: true)
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
                    side == "raw" ? "curl_cpu_per_request" : "curl_hal_head_cpu_per_request",
                    side == "raw"
                        ? "libcurl's CPU per request (all threads)"
                        : "libcurl's CPU per request sending Halley's request head (all threads)",
                    unit: .seconds, Samples(cpu.map { $0 / requests })))
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

    /// The lines Halley's `CurlRequester` adds to libcurl's own for a document request: the
    /// `Accept` and `User-Agent` lines, read from a request Halley made, and the
    /// `Accept-Encoding` line the requester sends in place of libcurl's copy (`CurlLibrary`).
    /// The rules, not copies.
    private static func halleysRequestHeadLines() async throws -> [String] {
        let probe = InMemoryRequester()
        let url = "https://probe.example/"
        await probe.register(url, json: [:])
        guard let probeURL = URL(string: url) else { throw BenchError("bad URL \(url)") }
        _ = try await ResourceManager(requester: probe).document(at: probeURL)
        guard let request = await probe.requests.first else { throw BenchError("the probe saw no request") }
        let lines = request.headers.map { "\($0.name): \($0.value)" }
        return lines + (CurlLibrary.acceptEncodingLine.map { [$0] } ?? [])
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
