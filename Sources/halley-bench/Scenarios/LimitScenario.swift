import Foundation
import Halley

/// A to-many relation far past `maxRequests`: the call must fail with the limit error
/// before it builds a request (or a task) for every link, in little time and memory.
struct LimitScenario: Scenario {
    let name = "limits"
    let title = "A to-many of 400,000 links past maxRequests (1,000): time and memory to the limit error"

    /// The goals of issue #18.
    static let timeGoal = 0.5
    static let memoryGoal = 64.0 * 1024 * 1024

    func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let count = settings.pick(full: 400_000, quick: 100_000)
        let requester = InMemoryRequester(latency: .zero)
        // Only the root exists: a call that sends item requests fails on a 404 instead, and
        // the check below reports it.
        let links = (0..<count).map { BenchGraphs.link("/items/\($0)") }
        await requester.register(
            BenchGraphs.base + "/huge",
            json: BenchGraphs.resource("/huge", links: [("items", .array(links))]))
        let root = try BenchGraphs.url("/huge")
        let manager = ResourceManager(requester: requester)
        var options = CallOptions()
        options.maxBodyBytes = 64 * 1024 * 1024

        var codes: [String] = []
        var requestCounts: [Int] = []
        let before = PeakMemory.startSection()
        let wall = try await Timing.repeated(settings.repetitions, warmups: settings.warmups) {
            await requester.resetCounts()
            do {
                _ = try await manager.resource(from: root, includes: ["[items]"], options: options)
                codes.append("no error")
            } catch let error as HalleyError {
                codes.append(error.code.rawValue)
            }
            requestCounts.append(await requester.requestCount)
        }
        let after = PeakMemory.read()
        var metrics: [Metric] = [
            .measured(
                "time_to_limit_error", "time to the limit error", unit: .seconds, wall,
                target: .atMost(Self.timeGoal)),
            .single(
                "limit_error", "calls that failed with limitExceeded", unit: .count,
                Double(codes.filter { $0 == HalleyError.Code.limitExceeded.rawValue }.count),
                target: .equal(Double(codes.count)), mustMeet: true),
            .single(
                "requests_sent", "requests sent per call (most)", unit: .count, Double(requestCounts.max() ?? 0)),
        ]
        if let peak = after.peakBytes, let start = before.currentBytes {
            metrics.append(
                .single(
                    "rss_growth", "peak RSS above the RSS before the calls", unit: .bytes,
                    Double(max(0, peak - start)), target: .atMost(Self.memoryGoal)))
        }
        return ScenarioResult(
            name: name, title: title,
            parameters: [
                ("links", String(count)), ("maxRequests", "1000 (default)"), ("include", "[items]"),
                ("errors seen", Set(codes).sorted().joined(separator: ", ")),
            ],
            metrics: metrics,
            notes: [
                "The root document (\(count) links) is registered and resident before the measured section; "
                    + "the growth is what the calls themselves allocate, parsing that document included."
            ])
    }
}
