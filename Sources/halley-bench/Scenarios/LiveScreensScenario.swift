import Foundation
import Halley

/// Screens that stay live (issue #42): an optimistic edit heard by 1,000 observers of the
/// handle and 10 collections listing it, and `refreshStale()` over 1,000 observed states.
/// and a `ResourceListModel`'s update after one item's new state, at 1,000 and 10,000 items
/// (``LiveListFigures``).
struct LiveScreensScenario: Scenario {
    let name = "live"
    let title = "Live screens: optimistic edit to 1,000 observers and 10 collections, refreshStale() over 1,000 states"

    func run(_ settings: BenchSettings) async throws -> ScenarioResult {
        let repetitions = settings.repetitions + settings.warmups
        var edit: [Double] = []
        var floor: [Double] = []
        for repetition in 0..<repetitions {
            let elapsed = try await Self.optimisticEdit(observers: 1_000, collections: 10)
            let wakeups = await Self.wakeupFloor(waiters: 1_010)
            if repetition >= settings.warmups {
                edit.append(Self.seconds(elapsed))
                floor.append(Self.seconds(wakeups))
            }
        }
        let (stale, staleRequests) = try await Self.refreshStale(states: 1_000, stale: 10, calls: repetitions)
        let (none, _) = try await Self.refreshStale(states: 1_000, stale: 0, calls: repetitions)
        let large = settings.pick(full: 10_000, quick: 2_000)
        let short = try await LiveListFigures.measure(
            items: 1_000, repetitions: settings.repetitions, warmups: settings.warmups)
        let long = try await LiveListFigures.measure(
            items: large, repetitions: settings.repetitions, warmups: settings.warmups)
        let growth = Samples(long.update).median / Samples(short.update).median
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
                .measured(
                    "optimistic_edit_floor", "floor: 1,010 waiting tasks resumed, until the last one ran",
                    unit: .seconds, Samples(floor)),
                .measured(
                    "optimistic_edit_over_floor", "optimistic edit / the floor of waking as many tasks",
                    unit: .ratio, Samples(zip(edit, floor).map { $0 / $1 })),
                .single(
                    "refresh_stale_requests", "refreshStale() over 1,000 observed states, 10 stale: requests",
                    unit: .count, Double(staleRequests), target: .equal(10), mustMeet: true),
                .measured(
                    "refresh_stale_wall", "refreshStale() with 10 stale: wall time, requests included",
                    unit: .seconds, Samples(Array(stale.dropFirst(settings.warmups)))),
                .measured(
                    "refresh_stale_scan", "refreshStale() with none stale: the work besides requests",
                    unit: .seconds, Samples(Array(none.dropFirst(settings.warmups))), target: .atMost(1e-3)),
                .measured(
                    "list_update_1000", "ResourceListModel of 1,000 items: one item's new state to the rows' change",
                    unit: .seconds, Samples(short.update), target: .atMost(1e-3)),
                .measured(
                    "list_update_large", "ResourceListModel of \(large) items in 100-item pages: the same",
                    unit: .seconds, Samples(long.update), target: .atMost(1e-3)),
                .measured(
                    "list_update_request", "of which the item's refresh (in-memory request, store, delivery)",
                    unit: .seconds, Samples(long.refresh)),
                .single(
                    "list_update_growth", "list update at \(large) items / at 1,000 (O(1): about 1)",
                    unit: .ratio, growth, target: .atMost(1.5)),
            ],
            notes: [])
    }

    // MARK: Optimistic edit

    /// `observers` consumers of one handle's events and one consumer of each of `collections`
    /// documents embedding it; the time from the edit's call until the last heard it pending.
    static func optimisticEdit(observers: Int, collections: Int) async throws -> Duration {
        let requester = InMemoryRequester(latency: .zero)
        let item = BenchGraphs.resource("/order", state: [("status", "open")])
        // Delivery is latest-value: an observer still busy when the refusal arrives would see
        // only the rolled-back state. The server answers once every observer heard the pending
        // state (or after 2 s, when the run fails), so the figure is the time until the last
        // one saw it.
        let (allHeard, heardSignal) = AsyncStream<ContinuousClock.Instant>.makeStream()
        let (gate, opened) = AsyncStream<Void>.makeStream()
        await requester.register(BenchGraphs.base + "/order") { request in
            if request.method == .get {
                return ResourceResponse(
                    headers: ["Cache-Control": "max-age=600"], url: request.url, body: item.serialized())
            }
            let everyoneHeard = await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    for await _ in gate { return true }
                    return false
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(2))
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            if !everyoneHeard { heardSignal.finish() }
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
        let ready = Arrivals(expecting: count)
        let heard = Arrivals(expecting: count)
        let (allReady, readySignal) = AsyncStream<Void>.makeStream()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for handle in handles {
                group.addTask {
                    // An observer stays until it hears the rollback, as a screen would: none
                    // ends (and unregisters) while the others are still to hear the edit.
                    var heardPending = false
                    for await event in handle.events {
                        guard case .updated(let state) = event else { continue }
                        if heardPending, !state.isPending { return }
                        if state.isPending, !heardPending {
                            heardPending = true
                            let now = ContinuousClock.now
                            if heard.arrive() {
                                heardSignal.yield(now)
                                opened.yield()
                            }
                            continue
                        }
                        if ready.arrive() {
                            readySignal.finish()
                        }
                    }
                }
            }
            for await _ in allReady {}
            let started = ContinuousClock.now
            // Refused by the server: it rolls back after the observers heard it.
            _ = try? await order.patch(.json(["status": "paid"]), expecting: .mergePatch)
            var last: ContinuousClock.Instant?
            for await instant in allHeard {
                last = instant
                break
            }
            guard let last else {
                group.cancelAll()
                throw BenchError("live: an observer did not hear the pending state within 2 s")
            }
            try await group.waitForAll()
            return last - started
        }
    }

    /// The floor under ``optimisticEdit(observers:collections:)``: `waiters` tasks each
    /// suspended on a continuation (as each observer waits on its mailbox), resumed one after
    /// another from one thread, until the last of them ran. The store's work is what the edit
    /// costs above it.
    static func wakeupFloor(waiters: Int) async -> Duration {
        let parked = LockedValue<[UnsafeContinuation<Void, Never>]>([])
        let ran = Arrivals(expecting: waiters)
        let (allParked, parkedSignal) = AsyncStream<Void>.makeStream()
        let (allRan, ranSignal) = AsyncStream<ContinuousClock.Instant>.makeStream()
        return await withTaskGroup(of: Void.self) { group in
            for _ in 0..<waiters {
                group.addTask {
                    await withUnsafeContinuation { continuation in
                        if parked.withLock({ list -> Bool in
                            list.append(continuation)
                            return list.count == waiters
                        }) {
                            parkedSignal.finish()
                        }
                    }
                    let now = ContinuousClock.now
                    if ran.arrive() {
                        ranSignal.yield(now)
                    }
                }
            }
            for await _ in allParked {}
            let started = ContinuousClock.now
            for continuation in parked.withLock({ $0 }) { continuation.resume() }
            var last = started
            for await instant in allRan {
                last = instant
                break
            }
            await group.waitForAll()
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
