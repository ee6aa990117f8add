import Foundation
import Halley

/// The same tree with each resource's latency drawn from a fixed-seed generator: the
/// traversal should take as long as its slowest root-to-leaf chain, because every branch
/// starts as soon as its own parent has arrived.
struct UnevenLatencyScenario: Scenario {
    let name = "uneven-latency"
    let title = "Same tree, per-resource latency uniform in [lo, hi]: wall / longest root-to-leaf latency sum"

    /// The generator's seed; fixed so every run uses the same latencies.
    static let seed: UInt64 = 0x4841_4C45_5900_0001

    func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let lowest = settings.pick(full: 5, quick: 2)
        let highest = settings.pick(full: 60, quick: 15)
        let tree = BenchGraphs.Tree(depth: 3, fanOut: 3)
        var generator = SplitMix64(seed: Self.seed)
        var latencies: [String: Duration] = [:]
        for path in tree.paths {
            // Uniform in [lowest, highest] ms; the modulo bias over 2^64 is negligible.
            let milliseconds = lowest + Int(generator.next() % UInt64(highest - lowest + 1))
            latencies[path] = .milliseconds(milliseconds)
        }
        let requester = InMemoryRequester(latency: .zero)
        await tree.register(on: requester, latency: latencies)
        let manager = ResourceManager(requester: requester)
        var options = CallOptions()
        options.maxConcurrency = 64
        let root = try BenchGraphs.url(BenchGraphs.Tree.rootPath)
        let longest = tree.longestPath(latencies)
        let total = latencies.values.reduce(Duration.zero, +)

        await requester.resetCounts()
        _ = try await manager.resource(from: root, includes: [tree.include], options: options)
        let requests = await requester.requestCount
        guard requests == tree.paths.count else {
            throw BenchError("traversal made \(requests) requests for \(tree.paths.count) resources")
        }

        let wall = try await Timing.repeated(settings.repetitions, warmups: settings.warmups) {
            _ = try await manager.resource(from: root, includes: [tree.include], options: options)
        }
        return ScenarioResult(
            name: name, title: title,
            parameters: [
                ("resources", "\(tree.paths.count)"), ("latency", "uniform \(lowest)–\(highest) ms"),
                ("seed", "0x" + String(Self.seed, radix: 16)), ("maxConcurrency", "64"),
                ("longest chain", format(longest)), ("sum of all latencies", format(total)),
            ],
            metrics: [
                .measured(
                    "ratio", "traversal / longest root-to-leaf latency", unit: .ratio,
                    wall.map { $0 / longest.seconds }, target: .atMost(1.10)),
                .measured("wall", "traversal wall time", unit: .seconds, wall),
            ])
    }
}
