import Foundation
import Halley

/// The durable store's figures (issue #41), measured beside the in-memory ones of
/// ``StateScenario``: opening a file of 10,000 states, the first typed get of a stored
/// collection against reading and decoding the same bytes from a file with `JSONDecoder`, a
/// traversal that writes 10,000 states through against the same traversal in memory, how long
/// until every row is on disk, the bytes on disk per state, and a second traversal over fresh
/// state with the durable store.
enum DurableStateFigures {
    /// The typed model both sides of the collection figure decode.
    struct Collection: Decodable {
        struct Embedded: Decodable { let item: [Item] }
        struct Item: Decodable {
            let id: Int
            let name: String
            let price: Double
            let padding: String
        }
        let count: Int
        let _embedded: Embedded
    }

    static func measure(_ settings: BenchSettings) async throws -> (metrics: [Metric], notes: [String]) {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("halley-bench-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = settings.pick(full: 10_000, quick: 2_000)
        let padding = String(repeating: "x", count: 900)
        let requester = InMemoryRequester(latency: .zero)
        var bodyBytes = 0
        let links = (0..<size).map { BenchGraphs.link("/durable/\($0)") }
        let root = BenchGraphs.resource("/durable", links: [("items", .array(links))], state: [("count", .int(size))])
        let rootRoute = InMemoryRequester.Route(
            headers: ["Content-Type": "application/hal+json", "Cache-Control": "max-age=3600"], body: root.serialized())
        await requester.register(BenchGraphs.base + "/durable", rootRoute)
        for index in 0..<size {
            let body = BenchGraphs.resource(
                "/durable/\(index)", state: [("id", .int(index)), ("padding", .string(padding))]
            ).serialized()
            bodyBytes += body.count
            await requester.register(
                BenchGraphs.base + "/durable/\(index)",
                InMemoryRequester.Route(
                    headers: [
                        "Content-Type": "application/hal+json", "Cache-Control": "max-age=3600", "ETag": "\"\(index)\"",
                    ], body: body))
        }
        let averageBody = Double(bodyBytes) / Double(size)
        var options = CallOptions()
        options.maxRequests = size + 10
        let rootURL = try BenchGraphs.url("/durable")
        func manager(_ store: ResourceStore, _ requester: InMemoryRequester) -> ResourceManager {
            var configuration = ResourceManager.Configuration()
            configuration.store = store
            return ResourceManager(requester: requester, configuration: configuration)
        }

        // Write-through: one traversal storing every state, in memory and with a file, by turns.
        var inMemory: [Double] = []
        var durable: [Double] = []
        var untilOnDisk: [Double] = []
        var file = directory.appendingPathComponent("warm.sqlite")
        for repetition in 0..<(settings.repetitions + settings.warmups) {
            let memoryStore = ResourceStore(maximumBytes: 64_000_000)
            let started = ContinuousClock.now
            _ = try await manager(memoryStore, requester).resource(
                from: rootURL, includes: ["[items]"], options: options)
            let memoryTime = ContinuousClock.now - started

            file = directory.appendingPathComponent("states-\(repetition).sqlite")
            let store = ResourceStore(file: file, maximumBytes: 64_000_000, maximumBytesOnDisk: 256_000_000)
            guard store.persistenceError == nil else { throw BenchError("state: \(store.persistenceError!)") }
            let writing = ContinuousClock.now
            _ = try await manager(store, requester).resource(from: rootURL, includes: ["[items]"], options: options)
            let ended = ContinuousClock.now
            await store.flush()
            let flushed = ContinuousClock.now
            guard repetition >= settings.warmups else { continue }
            inMemory.append(seconds(memoryTime))
            durable.append(seconds(ended - writing))
            untilOnDisk.append(seconds(flushed - ended))
        }
        let ratio = zip(durable, inMemory).map { $0 / $1 }

        // Bytes on disk per state: the file and its WAL, after the last traversal's rows.
        let diskBytes = [file.path, file.path + "-wal"].reduce(0) { total, path in
            total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        }
        let perState = Double(diskBytes) / Double(size + 1)

        // Opening: a new store on the file of `size` states, and on one of 100, each time.
        var opening: [Double] = []
        var openingSmall: [Double] = []
        let small = directory.appendingPathComponent("small.sqlite")
        do {
            let store = ResourceStore(file: small)
            var smallOptions = options
            smallOptions.maxRequests = 200
            let list = BenchGraphs.resource(
                "/durable-small", links: [("items", .array(Array(links.prefix(100))))], state: [("count", .int(100))])
            await requester.register(
                BenchGraphs.base + "/durable-small", InMemoryRequester.Route(body: list.serialized()))
            _ = try await manager(store, requester).resource(
                from: try BenchGraphs.url("/durable-small"), includes: ["[items]"], options: smallOptions)
            await store.flush()
        }
        for repetition in 0..<(settings.repetitions + settings.warmups) {
            let started = ContinuousClock.now
            let store = ResourceStore(file: file)
            let opened = ContinuousClock.now
            let smallStore = ResourceStore(file: small)
            let smallOpened = ContinuousClock.now
            guard store.persistenceError == nil, smallStore.persistenceError == nil else {
                throw BenchError("state: a store did not open")
            }
            guard repetition >= settings.warmups else { continue }
            opening.append(seconds(opened - started))
            openingSmall.append(seconds(smallOpened - opened))
        }

        // A relaunch: a traversal over what the file holds (read lazily), then again in memory.
        let offline = InMemoryRequester(latency: .zero)
        let relaunched = ResourceStore(file: file, maximumBytes: 64_000_000, maximumBytesOnDisk: 256_000_000)
        let relaunchedManager = manager(relaunched, offline)
        let fromDiskStarted = ContinuousClock.now
        // Every state is fresh in the file: the relaunched traversal sends nothing.
        _ = try await relaunchedManager.resource(from: rootURL, includes: ["[items]"], options: options)
        let fromDisk = seconds(ContinuousClock.now - fromDiskStarted) / Double(size)
        let fromDiskRequests = await offline.requestCount
        var held: [Double] = []
        for repetition in 0..<(settings.repetitions + settings.warmups) {
            let started = ContinuousClock.now
            _ = try await relaunchedManager.resource(from: rootURL, includes: ["[items]"], options: options)
            let elapsed = ContinuousClock.now - started
            guard repetition >= settings.warmups else { continue }
            held.append(seconds(elapsed) / Double(size + 1))
        }
        let heldRequests = await offline.requestCount - fromDiskRequests

        // The first typed get of a stored 100-item collection, against a file and JSONDecoder.
        let items: [JSONValue] = (0..<100).map { index in
            BenchGraphs.resource(
                "/collection/\(index)",
                state: [
                    ("id", .int(index)), ("name", .string("Item \(index)")), ("price", .double(Double(index) + 0.99)),
                    ("padding", .string(String(repeating: "y", count: 100))),
                ])
        }
        let collection = BenchGraphs.resource(
            "/collection", state: [("count", .int(100))], embedded: [("item", .array(items))])
        let collectionBody = collection.serialized()
        await requester.register(
            BenchGraphs.base + "/collection",
            InMemoryRequester.Route(
                headers: ["Content-Type": "application/hal+json", "Cache-Control": "max-age=3600"], body: collectionBody
            ))
        let collectionFile = directory.appendingPathComponent("collection.sqlite")
        let collectionURL = try BenchGraphs.url("/collection")
        do {
            let store = ResourceStore(file: collectionFile)
            _ = try await manager(store, requester).resource(at: collectionURL).get()
            await store.flush()
        }
        let plain = directory.appendingPathComponent("collection.json")
        try collectionBody.write(to: plain)
        var typedGet: [Double] = []
        var decoderRead: [Double] = []
        for repetition in 0..<(settings.repetitions * 3 + settings.warmups) {
            let store = ResourceStore(file: collectionFile)
            let handle = manager(store, offline).resource(at: collectionURL)
            let started = ContinuousClock.now
            let value = try await handle.get(Collection.self)
            let got = ContinuousClock.now
            let decoded = try JSONDecoder().decode(Collection.self, from: try Data(contentsOf: plain))
            let read = ContinuousClock.now
            // The get's writes (its row's use) end before the next store opens: at a launch
            // no earlier store writes beside the first get.
            await store.flush()
            guard value._embedded.item.count == 100, decoded._embedded.item.count == 100 else {
                throw BenchError("state: the collection does not hold 100 items")
            }
            guard repetition >= settings.warmups else { continue }
            typedGet.append(seconds(got - started))
            decoderRead.append(seconds(read - got))
        }
        let typedRatio = zip(typedGet, decoderRead).map { $0 / $1 }
        let collectionRequests = await offline.requestCount - fromDiskRequests - heldRequests

        let metrics: [Metric] = [
            .measured(
                "durable_open", "durable: open a store of \(size) states (~1 KiB each)", unit: .seconds,
                Samples(opening), target: .atMost(0.020)),
            .measured(
                "durable_open_small", "durable: open a store of 100 states (the size does not matter)",
                unit: .seconds, Samples(openingSmall)),
            .measured(
                "durable_typed_get_ratio",
                "durable: first typed get of a stored 100-item collection / file read + JSONDecoder", unit: .ratio,
                Samples(typedRatio), target: .atMost(2.0)),
            .measured(
                "durable_typed_get", "durable: first typed get of a stored 100-item collection", unit: .seconds,
                Samples(typedGet)),
            .measured(
                "durable_decoder_reference", "reference: Data(contentsOf:) + JSONDecoder of the same bytes",
                unit: .seconds, Samples(decoderRead)),
            .single(
                "durable_collection_requests", "durable: requests of the typed gets", unit: .count,
                Double(collectionRequests), target: .equal(0), mustMeet: true),
            .measured(
                "durable_write_through_ratio",
                "durable: traversal writing \(size) states through / the same traversal in memory", unit: .ratio,
                Samples(ratio), target: .atMost(1.10)),
            .measured(
                "durable_write_through", "durable: traversal writing \(size) states through", unit: .seconds,
                Samples(durable)),
            .measured(
                "durable_in_memory_reference", "reference: the same traversal, store in memory", unit: .seconds,
                Samples(inMemory)),
            .measured(
                "durable_until_on_disk", "durable: from the traversal's end until every row is on disk",
                unit: .seconds, Samples(untilOnDisk), target: .atMost(1.0)),
            .single(
                "durable_disk_bytes_per_state", "durable: bytes on disk per state (file + WAL)", unit: .bytes,
                perState, target: .atMost(1.3 * averageBody + 200)),
            .single(
                "durable_relaunch_per_resource", "durable: relaunched traversal, each state read from the file",
                unit: .seconds, fromDisk),
            .single(
                "durable_relaunch_requests", "durable: requests of the relaunched traversal", unit: .count,
                Double(fromDiskRequests), target: .equal(0), mustMeet: true),
            .measured(
                "durable_held_per_resource", "durable: second traversal over fresh state in memory, per resource",
                unit: .seconds, Samples(held), target: .atMost(2e-6)),
            .single(
                "durable_held_requests", "durable: requests of each second traversal", unit: .count,
                Double(heldRequests), target: .equal(0), mustMeet: true),
        ]
        let notes = [
            "durable: average body \(Int(averageBody)) B, so the disk target is 1.3 × body + 200 B = "
                + "\(Int(1.3 * averageBody + 200)) B; \(diskBytes) bytes on disk for \(size) states"
        ]
        return (metrics, notes)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
