import Foundation
import Halley
import Observation

/// The live list's figure (issue #42): a ``ResourceListModel`` over `items` items in pages of
/// 100, every page loaded, then one item's state replaced (the server's newer state, fetched
/// through the item's handle); the time from the refresh's call until the list's rows change,
/// at two lengths, to show it does not grow with the list. Main-actor work: this tool's main
/// thread runs the main run loop while the scenarios run.
enum LiveListFigures {
    struct Order: Decodable, Sendable {
        let id: Int
        let status: String
    }

    nonisolated static func order(_ index: Int, version: Int) -> JSONValue {
        BenchGraphs.resource("/orders/\(index)", state: [("id", .int(index)), ("status", .string("v\(version)"))])
    }

    /// The update times (seconds) and the refreshes' own times (the requests' share of them).
    @MainActor
    static func measure(items: Int, repetitions: Int, warmups: Int) async throws -> (
        update: [Double], refresh: [Double]
    ) {
        let requester = InMemoryRequester(latency: .zero)
        let perPage = 100
        let pages = items / perPage
        let versions = LockedValue([Int: Int]())
        for page in 0..<pages {
            let embedded = (0..<perPage).map { Self.order(page * perPage + $0, version: 0) }
            let links: [(String, JSONValue)] =
                page + 1 < pages ? [("next", BenchGraphs.link("/orders?page=\(page + 1)"))] : []
            let body = BenchGraphs.resource(
                "/orders?page=\(page)", links: links, embedded: [("item", .array(embedded))]
            ).serialized()
            await requester.register(
                BenchGraphs.base + "/orders?page=\(page)",
                InMemoryRequester.Route(
                    headers: ["Content-Type": "application/hal+json", "Cache-Control": "max-age=600"], body: body))
        }
        for index in 0..<items {
            await requester.register(BenchGraphs.base + "/orders/\(index)") { request in
                let version = versions.withLock { versions -> Int in
                    versions[index, default: 0] += 1
                    return versions[index]!
                }
                return ResourceResponse(
                    headers: ["Content-Type": "application/hal+json", "Cache-Control": "max-age=600"],
                    url: request.url, body: Self.order(index, version: version).serialized())
            }
        }
        var configuration = ResourceManager.Configuration()
        configuration.store = ResourceStore(maximumBytes: 256_000_000)
        var options = CallOptions()
        options.maxRequests = items + 10
        let manager = ResourceManager(requester: requester, configuration: configuration)
        let list = ResourceListModel(
            manager, from: try BenchGraphs.url("/orders?page=0"), as: Order.self, options: options)
        while list.hasMore {
            await list.loadMore()
            if let error = list.error { throw BenchError("live list: \(error)") }
        }
        guard list.rows.count == items else {
            throw BenchError("live list: \(list.rows.count) rows, not \(items)")
        }
        var update: [Double] = []
        var refresh: [Double] = []
        for repetition in 0..<(repetitions + warmups) {
            // Items spread over the list: the first page, the middle, the last.
            let index = ([7, items / 2 + 3, items - 20][repetition % 3] + repetition) % items
            let (changed, signal) = AsyncStream<ContinuousClock.Instant>.makeStream()
            withObservationTracking {
                _ = list.rows
            } onChange: {
                signal.yield(ContinuousClock.now)
            }
            let handle = manager.resource(at: try BenchGraphs.url("/orders/\(index)"))
            let started = ContinuousClock.now
            _ = try await handle.refresh()
            let refreshed = ContinuousClock.now
            var seen: ContinuousClock.Instant?
            for await instant in changed {
                seen = instant
                break
            }
            // onChange runs as the rows are about to change: wait for the change itself.
            await Task.yield()
            guard let seen, list.rows[index].value.status != "v0" else {
                throw BenchError("live list: row \(index) did not update")
            }
            guard repetition >= warmups else { continue }
            update.append(seconds(seen - started))
            refresh.append(seconds(refreshed - started))
        }
        list.stop()
        return (update, refresh)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
