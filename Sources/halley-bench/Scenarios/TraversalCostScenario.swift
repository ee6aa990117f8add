import Foundation
import Halley

/// The engine's cost per resource, read as CPU time as well as wall time, at one size.
///
/// This VM's speed drifts by tens of percent over seconds, so wall time alone cannot tell a
/// small change from noise. CPU time shows whether the traversal kept both cores busy, and
/// the scenario is the unit of the instruction count in BENCHMARKS.md: every call is the same,
/// so two runs under `valgrind --tool=callgrind` that differ only in their number of calls
/// (`--quick`: 1 + 3, full: 1 + 7) give the instructions of four calls, set-up excluded.
struct TraversalCostScenario: Scenario {
    let name = "traversal-cost"
    let title = "Zero-latency traversal of 2,000 linked resources: CPU and wall time per resource"

    static let size = 2_000

    func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let size = Self.size
        let requester = InMemoryRequester(latency: .zero)
        await BenchGraphs.registerItems(on: requester, rootPath: "/cost", count: size)
        let manager = ResourceManager(requester: requester)
        var options = CallOptions()
        options.maxRequests = size + 10
        let root = try BenchGraphs.url("/cost")
        let resources = Double(size + 1)

        var wall: [Double] = []
        var cpu: [Double] = []
        for repetition in 0..<(settings.repetitions + settings.warmups) {
            await requester.resetCounts()
            let cpuBefore = ProcessCPU.seconds()
            let started = ContinuousClock.now
            let document = try await manager.resource(from: root, includes: ["[items]"], options: options)
            let elapsed = ContinuousClock.now - started
            let cpuUsed = ProcessCPU.seconds() - cpuBefore
            guard document.objectValue?["items"]?.arrayValue?.count == size else {
                throw BenchError("traversal-cost: the result does not hold \(size) items")
            }
            guard repetition >= settings.warmups else { continue }
            wall.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            cpu.append(cpuUsed)
        }
        let wallPerResource = Samples(wall.map { $0 / resources })
        let cpuPerResource = Samples(cpu.map { $0 / resources })
        let utilisation = Samples(zip(cpu, wall).map { $0 / $1 })
        return ScenarioResult(
            name: name, title: title,
            parameters: [
                ("size", "N = \(size)"), ("include", "[items]"), ("latency", "0"),
                ("calls", "\(settings.warmups) untimed + \(settings.repetitions) timed"),
            ],
            metrics: [
                .measured("wall_per_resource", "wall time per resource", unit: .seconds, wallPerResource),
                .measured("cpu_per_resource", "CPU time per resource (all threads)", unit: .seconds, cpuPerResource),
                .measured("cpu_utilisation", "CPU time / wall time (cores kept busy)", unit: .ratio, utilisation),
            ],
            notes: [])
    }
}
