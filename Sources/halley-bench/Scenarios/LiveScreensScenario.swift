import Foundation
import Halley

/// Screens that stay live (issue #42): an optimistic edit heard by 1,000 observers of the
/// handle and 10 collections listing it, and `refreshStale()` over 1,000 observed states.
/// (`ResourceListModel` is main-actor bound, and this tool's main thread blocks on a semaphore:
/// its update figure is not measured here.)
struct LiveScreensScenario: Scenario {
    let name = "live"
    let title = "Live screens: optimistic edit to 1,000 observers and 10 collections, refreshStale() over 1,000 states"

    func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let repetitions = settings.repetitions + settings.warmups
        var edit: [Double] = []
        for repetition in 0..<repetitions {
            let elapsed = try await Self.optimisticEdit(observers: 1_000, collections: 10)
            if repetition >= settings.warmups { edit.append(Self.seconds(elapsed)) }
        }
        let (stale, staleRequests) = try await Self.refreshStale(states: 1_000, stale: 10, calls: repetitions)
        let (none, _) = try await Self.refreshStale(states: 1_000, stale: 0, calls: repetitions)
        return ScenarioResult(
            name: name, title: title,
            parameters: [
                ("latency", "0 (in-memory requester)"),
                ("calls", "\(settings.warmups) untimed + \(settings.repetitions) timed"),
            ],
            metrics: [
                .measured(
                    "optimistic_edit_to_observers", "optimistic edit heard by 1,000 observers and 10 collections",
                    unit: .seconds, Samples(edit), target: .atMost(5e-3)),
                .single(
                    "refresh_stale_requests", "refreshStale() over 1,000 observed states, 10 stale: requests",
                    unit: .count, Double(staleRequests), target: .equal(10), mustMeet: true),
                .measured(
                    "refresh_stale_wall", "refreshStale() with 10 stale: wall time, requests included",
                    unit: .seconds, Samples(Array(stale.dropFirst(settings.warmups)))),
                .measured(
                    "refresh_stale_scan", "refreshStale() with none stale: the work besides requests",
                    unit: .seconds, Samples(Array(none.dropFirst(settings.warmups))), target: .atMost(1e-3)),
            ],
            notes: [])
    }

    // MARK: Optimistic edit

    /// `observers` consumers of one handle's events and one consumer of each of `collections`
    /// documents embedding it; the time from the edit's call until the last heard it pending.
    static func optimisticEdit(observers: Int, collections: Int) async throws -> Duration {
        let requester = InMemoryRequester(latency: .zero)
        let item = BenchGraphs.resource("/order", state: [("status", "open")])
        await requester.register(BenchGraphs.base + "/order") { request in
            if request.method == .get {
                return ResourceResponse(
                    headers: ["Cache-Control": "max-age=600"], url: request.url, body: item.serialized())
            }
            return ResourceResponse(status: 409, url: request.url, body: Data())
        }
        for index in 0..<collections {
            let list = BenchGraphs.resource("/list-\(index)", embedded: [("item", [item])])
            await requester.register(BenchGraphs.base + "/list-\(index)", json: list)
        }
        var configuration = ResourceManager.Configuration()
        configuration.store = ResourceStore()
        let manager = ResourceManager(requester: requester, configuration: configuration)
        var handles: [ResourceHandle] = []
        for index in 0..<collections {
            let list = manager.resource(at: try BenchGraphs.url("/list-\(index)"))
            _ = try await list.get()
            handles.append(list)
        }
        let order = manager.resource(at: try BenchGraphs.url("/order"))
        _ = try await order.refresh()
        handles += Array(repeating: order, count: observers)
        let count = handles.count
        let ready = LockedValue(0)
        let heard = LockedValue(0)
        let (allReady, readySignal) = AsyncStream<Void>.makeStream()
        let (allHeard, heardSignal) = AsyncStream<ContinuousClock.Instant>.makeStream()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for handle in handles {
                group.addTask {
                    for await event in handle.events {
                        guard case .updated(let state) = event else { continue }
                        if state.isPending {
                            let now = ContinuousClock.now
                            if heard.withLock({ value -> Bool in
                                value += 1
                                return value == count
                            }) {
                                heardSignal.yield(now)
                            }
                            return
                        }
                        if ready.withLock({ value -> Bool in
                            value += 1
                            return value == count
                        }) {
                            readySignal.finish()
                        }
                    }
                }
            }
            for await _ in allReady {}
            let started = ContinuousClock.now
            // Refused by the server: it rolls back after the observers heard it.
            _ = try? await order.patch(.json(["status": "paid"]), expecting: .mergePatch)
            var last = started
            for await instant in allHeard {
                last = instant
                break
            }
            try await group.waitForAll()
            return last - started
        }
    }

    // MARK: refreshStale

    /// `states` observed states (their handles' event sequences held), `stale` of them always
    /// revalidated: one `refreshStale()`, its wall time and the conditional requests it sent.
    static func refreshStale(states: Int, stale: Int, calls: Int) async throws -> ([Double], Int) {
        let requester = InMemoryRequester(latency: .zero)
        for index in 0..<states {
            let body = BenchGraphs.resource("/s/\(index)", state: [("n", .int(index))]).serialized()
            let control = index < stale ? "no-cache" : "max-age=600"
            await requester.register(
                BenchGraphs.base + "/s/\(index)",
                .init(
                    status: 200,
                    headers: [
                        "Cache-Control": control, "ETag": "\"\(index)\"", "Content-Type": "application/hal+json",
                    ], body: body))
        }
        var configuration = ResourceManager.Configuration()
        let store = ResourceStore()
        configuration.store = store
        let manager = ResourceManager(requester: requester, configuration: configuration)
        var held: [ResourceEvents] = []
        for index in 0..<states {
            let handle = manager.resource(at: try BenchGraphs.url("/s/\(index)"))
            _ = try await handle.get()
            held.append(handle.events)
        }
        var times: [Double] = []
        var conditional = 0
        for _ in 0..<calls {
            await requester.resetCounts()
            let started = ContinuousClock.now
            _ = await store.refreshStale()
            times.append(seconds(ContinuousClock.now - started))
            conditional = max(
                conditional, await requester.requests.filter { $0.headers["If-None-Match"] != nil }.count)
        }
        guard held.count == states else { throw BenchError("live: observers lost") }
        return (times, conditional)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
