import Foundation
import Halley

/// 100 branches pointing at 10 distinct URLs: each URL must be requested once per call,
/// including while the first request for it is still in flight. A wrong count fails the run.
struct DedupScenario: Scenario {
    let name = "dedup"
    let title = "100 branches pointing at 10 distinct URLs: requests to them must be 10"

    static let branches = 100
    static let distinct = 10

    func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        // A latency keeps the first request in flight while the other branches join it.
        let latency: Duration = .milliseconds(2)

        // Flat: the root's 100 links name 10 URLs.
        let flat = InMemoryRequester(latency: latency)
        await BenchGraphs.registerList(
            on: flat, rootPath: "/flat", rel: "branches", count: Self.branches,
            rootLatency: .zero
        ) { "/shared/\($0 % Self.distinct)" }
        // Nested: 100 distinct branch resources, each with a `target` among 10 URLs.
        let nested = InMemoryRequester(latency: latency)
        await BenchGraphs.registerList(
            on: nested, rootPath: "/tree", rel: "branches", count: Self.branches,
            rootLatency: .zero
        ) { "/branch/\($0)" }
        for index in 0..<Self.branches {
            let path = "/branch/\(index)"
            let target = "/shared/\(index % Self.distinct)"
            await nested.register(
                BenchGraphs.base + path,
                json: BenchGraphs.resource(
                    path, links: [("target", BenchGraphs.link(target))],
                    state: [("id", .int(index))]))
        }
        for index in 0..<Self.distinct {
            let path = "/shared/\(index)"
            await nested.register(BenchGraphs.base + path, json: BenchGraphs.item(path, index: index))
        }

        var options = CallOptions()
        options.maxConcurrency = 64
        let flatCheck = try await check(
            flat, root: "/flat", include: "[branches]", options: options, settings: settings
        ) {
            $0["branches"]?.arrayValue?.count ?? 0
        }
        let nestedCheck = try await check(
            nested, root: "/tree", include: "[branches].target", options: options,
            settings: settings
        ) {
            ($0["branches"]?.arrayValue ?? []).filter { $0["target"]?["id"] != nil }.count
        }

        var notes: [String] = []
        for (label, result) in [("flat", flatCheck), ("nested", nestedCheck)] where !result.problems.isEmpty {
            notes.append("\(label): " + result.problems.joined(separator: "; "))
        }
        return ScenarioResult(
            name: name, title: title,
            parameters: [
                ("branches", "\(Self.branches)"), ("distinct URLs", "\(Self.distinct)"),
                ("latency", format(latency)), ("calls checked", "\(settings.repetitions) per shape"),
            ],
            metrics: [
                .single(
                    "flat_requests", "flat: requests to the 10 shared URLs (worst call)", unit: .count,
                    Double(flatCheck.worstShared), target: .equal(Double(Self.distinct)), mustMeet: true),
                .single(
                    "nested_requests", "nested [branches].target: requests to the shared URLs (worst call)",
                    unit: .count, Double(nestedCheck.worstShared), target: .equal(Double(Self.distinct)), mustMeet: true
                ),
                .single(
                    "nested_total", "nested: all requests of one call (1 + 100 + 10)", unit: .count,
                    Double(nestedCheck.worstTotal), target: .equal(Double(1 + Self.branches + Self.distinct)),
                    mustMeet: true),
                .single(
                    "merged", "branches filled in the merged documents (both shapes, every call)", unit: .count,
                    Double(min(flatCheck.minimumMerged, nestedCheck.minimumMerged)),
                    target: .equal(Double(Self.branches)), mustMeet: true),
                .measured("wall", "nested call wall time", unit: .seconds, nestedCheck.wall),
            ],
            notes: notes)
    }

    private struct Check {
        var worstShared = 0
        var worstTotal = 0
        var minimumMerged = Int.max
        var problems: [String] = []
        var wall = Samples([])
    }

    /// Runs the call `settings.repetitions` times and checks the requests of every call.
    private func check(
        _ requester: InMemoryRequester, root: String, include: Include, options: CallOptions,
        settings: BenchSettings, merged: (JSONValue) -> Int
    ) async throws -> Check {
        let manager = ResourceManager(requester: requester)
        let url = try BenchGraphs.url(root)
        var result = Check()
        var seconds: [Double] = []
        for repetition in 0..<settings.repetitions {
            await requester.resetCounts()
            var document = JSONValue.null
            let elapsed = try await Timing.time {
                document = try await manager.resource(from: url, includes: [include], options: options)
            }
            if repetition >= settings.warmups { seconds.append(elapsed.seconds) }
            let urls = await requester.requestedURLs
            let shared = urls.filter { $0.contains("/shared/") }
            let perURL = Dictionary(grouping: shared, by: { $0 }).mapValues(\.count)
            // The call farthest from 10 requests is the one reported.
            if repetition == 0 || abs(shared.count - Self.distinct) > abs(result.worstShared - Self.distinct) {
                result.worstShared = shared.count
            }
            result.worstTotal = max(result.worstTotal, urls.count)
            result.minimumMerged = min(result.minimumMerged, merged(document))
            for (sharedURL, times) in perURL where times != 1 {
                result.problems.append("\(sharedURL) requested \(times) times")
            }
            if perURL.count != Self.distinct {
                result.problems.append("\(perURL.count) of \(Self.distinct) shared URLs requested")
            }
        }
        result.wall = Samples(seconds)
        return result
    }
}
