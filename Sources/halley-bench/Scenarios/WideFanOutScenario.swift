import Foundation
import Halley

/// One resource linking a thousand: with a concurrency limit of 16 and a fixed latency the
/// traversal should take ceil(1000 / 16) latencies, keeping all 16 slots busy.
struct WideFanOutScenario: Scenario {
    let name = "fan-out"
    let title = "One resource linking N, maxConcurrency 16, latency 5 ms: wall / (ceil(N/16) x L)"

    func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let count = settings.pick(full: 1_000, quick: 200)
        let limit = 16
        let latency: Duration = .milliseconds(5)
        let requester = InMemoryRequester(latency: latency)
        // The root answers at once so the ideal is exactly ceil(N/limit) item latencies.
        await BenchGraphs.registerList(
            on: requester, rootPath: "/wide", rel: "items", count: count,
            rootLatency: .zero
        ) { "/wide/\($0)" }
        let manager = ResourceManager(requester: requester)
        var options = CallOptions()
        options.maxConcurrency = limit
        options.maxRequests = count + 10
        let root = try BenchGraphs.url("/wide")
        let rounds = (count + limit - 1) / limit
        let ideal = latency * rounds

        await requester.resetCounts()
        let document = try await manager.resource(from: root, includes: ["[items]"], options: options)
        let merged = document["items"]?.arrayValue?.count ?? 0
        let requests = await requester.requestCount
        let inFlight = await requester.maxInFlight
        guard merged == count, requests == count + 1 else {
            throw BenchError("merged \(merged) of \(count) items with \(requests) requests")
        }

        let before = PeakMemory.startSection()
        let wall = try await Timing.repeated(settings.repetitions, warmups: settings.warmups) {
            _ = try await manager.resource(from: root, includes: ["[items]"], options: options)
        }
        let after = PeakMemory.read()
        // The floor the runtime's timer imposes: ceil(N/16) bare sleeps of L back to back.
        let sleeps = try await Timing.repeated(settings.repetitions, warmups: settings.warmups) {
            for _ in 0..<rounds { try await Task.sleep(for: latency) }
        }

        var metrics: [Metric] = [
            .measured(
                "ratio", "traversal / (ceil(N/16)·L)", unit: .ratio, wall.map { $0 / ideal.seconds },
                target: .atMost(1.15)),
            .measured(
                "sleep_floor_ratio", "timer floor: ceil(N/16) bare sleeps / (ceil(N/16)·L)", unit: .ratio,
                sleeps.map { $0 / ideal.seconds }),
            .measured("wall", "traversal wall time", unit: .seconds, wall),
            .single(
                "max_in_flight", "most requests in flight (limit 16)", unit: .count, Double(inFlight),
                target: .atMost(Double(limit)), mustMeet: true),
        ]
        if let peak = after.peakBytes {
            metrics.append(.single("peak_rss", "peak RSS during the traversals", unit: .bytes, Double(peak)))
            if let start = before.currentBytes {
                metrics.append(
                    .single(
                        "peak_rss_growth", "peak RSS above the RSS before them", unit: .bytes,
                        Double(max(0, peak - start))))
            }
        }
        return ScenarioResult(
            name: name, title: title,
            parameters: [
                ("linked resources N", "\(count)"), ("maxConcurrency", "\(limit)"), ("latency L", format(latency)),
                ("root latency", "0"), ("ideal ceil(N/16)·L", format(ideal)), ("memory source", after.source),
            ],
            metrics: metrics)
    }
}
