import Foundation
import Halley

/// A tree of depth 3 and fan-out 3 behind a fixed latency: a concurrent traversal should take
/// (depth + 1) round trips, whatever the number of resources. A hand-written sequential walk
/// through the same requester is measured beside it for contrast.
struct CriticalPathScenario: Scenario {
    let name = "critical-path"
    let title = "Tree of depth 3, fan-out 3, fixed latency: wall / ((depth + 1) x L)"

    func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let latency: Duration = settings.pick(full: .milliseconds(20), quick: .milliseconds(5))
        let tree = BenchGraphs.Tree(depth: 3, fanOut: 3)
        let requester = InMemoryRequester(latency: latency)
        await tree.register(on: requester)
        let manager = ResourceManager(requester: requester)
        var options = CallOptions()
        options.maxConcurrency = 64
        let root = try BenchGraphs.url(BenchGraphs.Tree.rootPath)
        let ideal = (latency * (tree.depth + 1)).seconds

        // Correctness first: every resource exactly once, as the merged document shows.
        await requester.resetCounts()
        let document = try await manager.resource(from: root, includes: [tree.include], options: options)
        let leaves = countLeaves(document, depth: tree.depth)
        let requests = await requester.requestCount
        guard requests == tree.paths.count, leaves == Int(pow(Double(tree.fanOut), Double(tree.depth))) else {
            throw BenchError(
                "traversal made \(requests) requests for \(tree.paths.count) resources, \(leaves) leaves merged")
        }

        let concurrent = try await Timing.repeated(settings.repetitions, warmups: settings.warmups) {
            _ = try await manager.resource(from: root, includes: [tree.include], options: options)
        }
        let sequential = try await Timing.repeated(settings.repetitions, warmups: settings.warmups) {
            let fetched = try await sequentialWalk(requester, root: root, depth: tree.depth)
            guard fetched == tree.paths.count else { throw BenchError("sequential walk fetched \(fetched)") }
        }
        // The floor the runtime's timer imposes: (depth + 1) sleeps of L back to back, no library.
        let sleeps = try await Timing.repeated(settings.repetitions, warmups: settings.warmups) {
            for _ in 0...tree.depth { try await Task.sleep(for: latency) }
        }

        return ScenarioResult(
            name: name, title: title,
            parameters: [
                ("resources", "\(tree.paths.count)"), ("depth", "\(tree.depth)"), ("fan-out", "\(tree.fanOut)"),
                ("latency L", format(latency)), ("maxConcurrency", "64"),
                ("ideal (depth+1)·L", format(latency * (tree.depth + 1))),
            ],
            metrics: [
                .measured(
                    "ratio", "concurrent traversal / ((depth+1)·L)", unit: .ratio,
                    concurrent.map { $0 / ideal }, target: .atMost(1.10)),
                .measured(
                    "sequential_ratio", "naive sequential walk / ((depth+1)·L)", unit: .ratio,
                    sequential.map { $0 / ideal }),
                .measured(
                    "sleep_floor_ratio", "timer floor: (depth+1) bare sleeps / ((depth+1)·L)", unit: .ratio,
                    sleeps.map { $0 / ideal }),
                .measured("wall", "concurrent traversal wall time", unit: .seconds, concurrent),
                .measured("sequential_wall", "sequential walk wall time", unit: .seconds, sequential),
            ],
            notes: [
                "Sequential ideal is \(tree.paths.count)·L = \(tree.paths.count / (tree.depth + 1))× the concurrent ideal."
            ])
    }

    /// The naive client: one request at a time, depth first, following `children`.
    private func sequentialWalk(_ requester: InMemoryRequester, root: URL, depth: Int) async throws -> Int {
        var stack: [(URL, Int)] = [(root, 0)]
        var fetched = 0
        while let (url, level) = stack.popLast() {
            let response = try await requester.response(for: ResourceRequest(url: url))
            guard response.isSuccess else { throw BenchError("HTTP \(response.status) for \(url)") }
            let resource = try HALResource(parsing: response.body, url: response.url)
            fetched += 1
            guard level < depth else { continue }
            for link in resource.links["children"].reversed() {
                guard let child = resource.url(for: link) else { throw BenchError("bad link \(link.href)") }
                stack.append((child, level + 1))
            }
        }
        return fetched
    }

    /// The number of merged nodes at the bottom level.
    private func countLeaves(_ value: JSONValue, depth: Int) -> Int {
        guard depth > 0 else { return 1 }
        return (value["children"]?.arrayValue ?? []).reduce(0) { $0 + countLeaves($1, depth: depth - 1) }
    }
}
