import Foundation
import Halley

/// The resource store (issue #29): a second traversal of a 1,000-resource graph over fresh
/// stored state (no request at all), one update heard by 1,000 observers of one handle, and
/// what the store keeps per resource.
struct StateScenario: Scenario {
    let name = "state"
    let title =
        "Resource store: second traversal over fresh state, one update to 1,000 observers, bytes per state; "
        + "the durable store's open, first typed get, write-through and bytes on disk"

    static let size = 1_000
    static let observers = 1_000

    func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let size = Self.size
        let requester = InMemoryRequester(latency: .zero)
        await BenchGraphs.registerItems(on: requester, rootPath: "/state", count: size)
        // One resource whose every GET is a new version, for the observers.
        let version = LockedValue(0)
        await requester.register(BenchGraphs.base + "/watched") { request in
            let current = version.withLock { value -> Int in
                value += 1
                return value
            }
            let body = BenchGraphs.resource("/watched", links: [], state: [("version", .int(current))])
            return ResourceResponse(
                headers: ["Cache-Control": "no-cache"], url: request.url, body: body.serialized())
        }
        var configuration = ResourceManager.Configuration()
        // The graph's documents carry no Cache-Control: the store's default freshness decides.
        let store = ResourceStore(maximumBytes: 64_000_000, defaultFreshness: .seconds(600))
        configuration.store = store
        let manager = ResourceManager(requester: requester, configuration: configuration)
        var options = CallOptions()
        options.maxRequests = size + 10
        let root = try BenchGraphs.url("/state")
        let resources = Double(size + 1)

        // First pass: fetches and stores every resource.
        let residentBefore = PeakMemory.read().currentBytes
        let first = try await manager.resource(from: root, includes: ["[items]"], options: options)
        let residentAfter = PeakMemory.read().currentBytes
        guard first.objectValue?["items"]?.arrayValue?.count == size else {
            throw BenchError("state: the first pass does not hold \(size) items")
        }
        let firstRequests = await requester.requestCount
        let storedCount = store.count

        // Second passes: everything is fresh in the store.
        var wall: [Double] = []
        var sent = 0
        for repetition in 0..<(settings.repetitions + settings.warmups) {
            await requester.resetCounts()
            let started = ContinuousClock.now
            let document = try await manager.resource(from: root, includes: ["[items]"], options: options)
            let elapsed = ContinuousClock.now - started
            guard document == first else { throw BenchError("state: the second pass differs from the first") }
            sent = max(sent, await requester.requestCount)
            guard repetition >= settings.warmups else { continue }
            wall.append(Self.seconds(elapsed) / resources)
        }

        // Observers: 1,000 consumers of one handle's events; one refresh brings a new state.
        let watched = manager.resource(at: try BenchGraphs.url("/watched"))
        _ = try await watched.get()
        var delivery: [Double] = []
        for repetition in 0..<(settings.repetitions + settings.warmups) {
            let elapsed = try await Self.deliver(to: Self.observers, of: watched, version: version)
            guard repetition >= settings.warmups else { continue }
            delivery.append(Self.seconds(elapsed))
        }

        var metrics: [Metric] = [
            .single(
                "first_pass_requests", "requests of the first pass", unit: .count, Double(firstRequests),
                target: .equal(resources), mustMeet: true),
            .single(
                "second_pass_requests", "requests of each second pass", unit: .count, Double(sent),
                target: .equal(0), mustMeet: true),
            .measured(
                "second_pass_per_resource", "second pass: wall time per resource", unit: .seconds,
                Samples(wall), target: .atMost(2e-6)),
            .measured(
                "update_to_observers", "one update heard by \(Self.observers) observers of one handle",
                unit: .seconds, Samples(delivery), target: .atMost(5e-3)),
            .single(
                "store_bytes_per_state", "store's accounted bytes per stored state", unit: .bytes,
                Double(store.totalBytes) / Double(max(1, storedCount))),
        ]
        if let residentBefore, let residentAfter {
            // The first pass's result is alive too: an upper bound of what a state costs.
            metrics.append(
                .single(
                    "resident_per_state", "resident growth per stored state over the first pass (result included)",
                    unit: .bytes, Double(residentAfter - residentBefore) / Double(max(1, storedCount))))
        }
        // The durable store's figures (issue #41), in the same run.
        let durable = try await DurableStateFigures.measure(settings)
        metrics += durable.metrics
        return ScenarioResult(
            name: name, title: title,
            parameters: [
                ("size", "N = \(size) items + root"), ("include", "[items]"), ("latency", "0"),
                ("freshness", "store default 600 s"), ("observers", "\(Self.observers)"),
                ("calls", "\(settings.warmups) untimed + \(settings.repetitions) timed"),
            ],
            metrics: metrics,
            notes: ["\(storedCount) states stored, \(store.totalBytes) bytes accounted"] + durable.notes)
    }

    /// Starts `count` consumers of `handle`'s events, waits until each heard the stored state,
    /// refreshes once, and returns how long until the last consumer heard the new version.
    private static func deliver(to count: Int, of handle: ResourceHandle, version: LockedValue<Int>) async throws
        -> Duration
    {
        let target = version.get() + 1
        let ready = Arrivals(expecting: count)
        let heard = Arrivals(expecting: count)
        let (allReady, readySignal) = AsyncStream<Void>.makeStream()
        let (allHeard, heardSignal) = AsyncStream<ContinuousClock.Instant>.makeStream()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask {
                    for await event in handle.events {
                        guard case .updated(let state) = event else { continue }
                        if state.resource.state["version"]?.intValue == target {
                            let now = ContinuousClock.now
                            if heard.arrive() {
                                heardSignal.yield(now)
                            }
                            return
                        }
                        if ready.arrive() {
                            readySignal.finish()
                        }
                    }
                }
            }
            for await _ in allReady {}
            let started = ContinuousClock.now
            _ = try await handle.refresh()
            var last = started
            for await instant in allHeard {
                last = instant
                break
            }
            try await group.waitForAll()
            return last - started
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
