import Foundation
import Halley

/// Halley against libcurl alone on real networks (issue #28): nginx over HTTP/1.1 and over
/// HTTPS with HTTP/2, side by side in one run with ``RawCurlClient`` (the same multi loop, no
/// Halley) fetching the same URLs:
///
/// - client CPU per request, 1,000 zero-latency linked resources over HTTP/1.1 keep-alive,
///   Halley ÷ libcurl;
/// - the same over HTTPS with HTTP/2;
/// - a 200-wide fan-out, 20 ms per response behind an nginx HTTP/2 front (proxying to
///   ``BenchServer``), limit 16: wall time, Halley ÷ libcurl;
/// - connections nginx saw for a 40-resource tree over HTTP/2.
///
/// Each repetition runs both sides, alternating which goes first; a requester and a raw
/// client are made per part and kept across its repetitions (warm connections, as a
/// long-lived client has). CPU is the whole process's (every thread), from `getrusage`.
struct NginxScenario: Scenario {
    let name = "nginx"
    let title = "Halley vs raw libcurl (same multi loop) against nginx: HTTP/1.1, HTTP/2, fan-out, connections"

    func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let many = settings.pick(full: 1_000, quick: 300)
        let backend = try BenchServer.start()
        let lab = try NginxLab.start(listSizes: [many], backend: backend)
        defer { lab.stop() }
        var metrics: [Metric] = []
        let tls = TLSConfiguration(trustRoots: .only([.file(lab.caFile)]))
        let list = "/lists/\(many)"
        let items = (0..<many).map { "/items/\($0)" }

        // (a) HTTP/1.1 keep-alive, zero latency: CPU per request.
        let http1 = try await compare(
            settings, halley: try CurlRequester(proxy: .direct), raw: try RawCurlClient(caFile: nil),
            root: lab.plain(list), items: items.map(lab.plain), limit: 16)
        metrics += cpuMetrics("http1", "\(many) resources over HTTP/1.1 keep-alive", http1, many + 1, goal: 1.25)

        // (b) HTTPS + HTTP/2, zero latency: CPU per request.
        let http2 = try await compare(
            settings, halley: try CurlRequester(tls: tls, proxy: .direct), raw: try RawCurlClient(caFile: lab.caFile),
            root: lab.tls(list), items: items.map(lab.tls), limit: 16)
        metrics += cpuMetrics("http2", "\(many) resources over HTTPS + HTTP/2", http2, many + 1, goal: 1.15)

        // (c) 200 links, 20 ms each behind the HTTP/2 front, limit 16: wall time.
        let wide = 200
        let fanOut = try await compare(
            settings, halley: try CurlRequester(tls: tls, proxy: .direct), raw: try RawCurlClient(caFile: lab.caFile),
            root: lab.front("/wide?n=\(wide)&ms=20"), items: (0..<wide).map { lab.front("/item/\($0)?ms=20") },
            limit: 16)
        metrics.append(
            .measured(
                "fanout_wall_ratio",
                "\(wide) links, 20 ms each behind an HTTP/2 front, limit 16: wall, Halley ÷ libcurl",
                unit: .ratio, Samples.ratios(fanOut.halleyWall, fanOut.rawWall), target: .atMost(1.05)))
        metrics.append(
            .measured("fanout_halley_wall", "the same: Halley's wall time", unit: .seconds, Samples(fanOut.halleyWall)))
        metrics.append(
            .measured("fanout_curl_wall", "the same: libcurl's wall time", unit: .seconds, Samples(fanOut.rawWall)))

        // (d) Connections for a 40-resource tree over HTTP/2, from a cold requester.
        let marker = "tree-\(UUID().uuidString)"
        var options = CallOptions()
        options.maxConcurrency = 64
        let tree = try await ResourceManager(requester: try CurlRequester(tls: tls, proxy: .direct)).resource(
            from: try url(lab.tls("/m/\(marker)/tree/0")), includes: ["[child].[child].[child]"], options: options)
        let leaves = (tree["child"]?.arrayValue ?? []).flatMap { $0["child"]?.arrayValue ?? [] }
            .flatMap { $0["child"]?.arrayValue ?? [] }
        guard leaves.count == 27 else { throw BenchError("the tree over HTTP/2 lost leaves: \(leaves.count) of 27") }
        let connections = try lab.connections(carrying: marker, count: 40)
        metrics.append(
            .single(
                "tree_connections", "connections nginx saw for a 40-resource tree over HTTP/2 (limit 64)",
                unit: .count, Double(connections), target: .equal(1)))

        _ = backend
        return ScenarioResult(
            name: name, title: title,
            parameters: [
                ("server", "nginx (1 worker), static files; HTTP/2 front proxy_pass to the transport bench server"),
                ("baseline", "RawCurlClient: libcurl multi loop, no Halley, same options"),
                ("libcurl", CurlRequester.libraryVersion ?? "?"),
            ],
            metrics: metrics)
    }

    /// Both sides' figures per measured repetition.
    struct Comparison {
        var halleyCPU: [Double] = []
        var rawCPU: [Double] = []
        var halleyWall: [Double] = []
        var rawWall: [Double] = []
    }

    /// Fetches `root` then `items` (`limit` at a time) with each side, every repetition.
    private func compare(
        _ settings: BenchSettings, halley requester: CurlRequester, raw: RawCurlClient, root: String,
        items: [String], limit: Int
    ) async throws -> Comparison {
        let manager = ResourceManager(requester: requester)
        var options = CallOptions()
        options.maxConcurrency = limit
        options.maxRequests = 10_000
        let rootURL = try url(root)
        var result = Comparison()
        for repetition in 0..<settings.repetitions {
            let keep = repetition >= settings.warmups
            for side in (repetition % 2 == 0 ? [0, 1] : [1, 0]) {
                let clock = ContinuousClock()
                let cpuBefore = ProcessCPU.seconds()
                let start = clock.now
                if side == 0 {
                    let document = try await manager.resource(from: rootURL, includes: ["[items]"], options: options)
                    let wall = (clock.now - start).seconds
                    let cpu = ProcessCPU.seconds() - cpuBefore
                    guard document["items"]?.arrayValue?.count == items.count else {
                        throw BenchError("Halley lost items of \(root)")
                    }
                    if keep {
                        result.halleyWall.append(wall)
                        result.halleyCPU.append(cpu)
                    }
                } else {
                    let first = await raw.fetch([root], limit: 1)
                    let rest = await raw.fetch(items, limit: limit)
                    let wall = (clock.now - start).seconds
                    let cpu = ProcessCPU.seconds() - cpuBefore
                    guard first.succeeded == 1, rest.succeeded == items.count else {
                        throw BenchError(
                            "libcurl failed on \(root): \(first.firstFailure ?? rest.firstFailure ?? "lost items")")
                    }
                    if keep {
                        result.rawWall.append(wall)
                        result.rawCPU.append(cpu)
                    }
                }
            }
        }
        return result
    }

    private func cpuMetrics(_ id: String, _ label: String, _ comparison: Comparison, _ requests: Int, goal: Double)
        -> [Metric]
    {
        let perRequest = Double(requests)
        return [
            .measured(
                "\(id)_cpu_ratio", "\(label), limit 16: client CPU, Halley ÷ libcurl", unit: .ratio,
                Samples.ratios(comparison.halleyCPU, comparison.rawCPU), target: .atMost(goal)),
            .measured(
                "\(id)_halley_cpu_per_request", "the same: Halley's CPU per request", unit: .seconds,
                Samples(comparison.halleyCPU.map { $0 / perRequest })),
            .measured(
                "\(id)_curl_cpu_per_request", "the same: libcurl's CPU per request", unit: .seconds,
                Samples(comparison.rawCPU.map { $0 / perRequest })),
            .measured(
                "\(id)_wall_ratio", "the same: wall, Halley ÷ libcurl", unit: .ratio,
                Samples.ratios(comparison.halleyWall, comparison.rawWall)),
        ]
    }

    private func url(_ text: String) throws -> URL {
        guard let url = URL(string: text) else { throw BenchError("bad URL \(text)") }
        return url
    }
}
