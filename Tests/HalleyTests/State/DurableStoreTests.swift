import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// The durable store: states survive a relaunch (a new store on the same file), per user,
/// lazily, bounded on disk, and a file it cannot use is set aside for a fresh one.
@Suite struct DurableStoreTests {
    /// A temporary directory for one test's database, removed when the test ends.
    final class Directory: Sendable {
        let url: URL
        init() {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("halley-store-\(UUID().uuidString)")
        }
        var file: URL { url.appendingPathComponent("states.sqlite") }
        deinit { try? FileManager.default.removeItem(at: url) }

        /// One launch that stores `/orders/7` and ends, leaving the file for the test to
        /// change before the next launch.
        func launchGettingTheOrder(_ api: ScriptedAPI) async throws {
            let store = ResourceStore(file: file)
            _ = try await stateManager(api, store: store).resource(at: Graph.url("/orders/7")).get()
            await store.flush()
        }

        /// A connection of the test's own to the file, as another process would have.
        func connection() throws -> SQLiteConnection {
            try SQLiteConnection(library: SQLiteLibrary.shared.get(), path: file.path)
        }
    }

    /// The events a store reports, gathered.
    final class Events: Sendable {
        private let events = LockedValue<[ResourceStore.DiskEvent]>([])
        var handler: @Sendable (ResourceStore.DiskEvent) -> Void {
            { [events] event in events.withLock { $0.append(event) } }
        }
        var all: [ResourceStore.DiskEvent] { events.get() }
        /// Waits until the store's event queue delivered what it had.
        func kinds(of store: ResourceStore) async -> [ResourceStore.DiskEvent.Kind] {
            await store.flush()
            store.durable?.flushNow()
            await store.durable?.flushEvents()
            return all.map(\.kind)
        }
    }

    private func api() async -> ScriptedAPI {
        let api = ScriptedAPI()
        await api.serve(
            "/orders/7", Graph.resource("/orders/7", ["status": "open", "total": 12.5]),
            headers: ["Cache-Control": "max-age=600", "ETag": "\"7\"", "Set-Cookie": "session=secret"])
        return api
    }

    @Test func aStateSurvivesARelaunchAndIsUsedWithNoRequest() async throws {
        let directory = Directory()
        let api = await api()
        do {
            let store = ResourceStore(file: directory.file)
            #expect(store.persistenceError == nil)
            let manager = await stateManager(api, store: store)
            _ = try await manager.resource(at: Graph.url("/orders/7")).get()
            await store.flush()
        }
        let relaunched = ResourceStore(file: directory.file)
        #expect(relaunched.count == 0, "nothing is read at open")
        let manager = await stateManager(api, store: relaunched)
        let order = manager.resource(at: Graph.url("/orders/7"))
        let shown = try #require(await order.current)
        #expect(shown.resource.state["status"] == "open")
        #expect(!shown.isStale, "fresh for 600 s from when it was received, not from the relaunch")
        #expect(shown.etag == "\"7\"")
        #expect(shown.headers["Set-Cookie"] == nil, "only the headers freshness and validators need reach the disk")
        _ = try await order.get()
        #expect(await api.requester.count(for: Graph.base + "/orders/7") == 1, "the relaunched get sends nothing")
        #expect(relaunched.count == 1)
    }

    @Test func theAgeOfAStateContinuesFromWhenItWasReceived() throws {
        let now = ContinuousClock.now
        let received = Date(timeIntervalSince1970: 1_000_000)
        let state = ResourceState(
            url: Graph.url("/a"), resource: try HALResource(json: Graph.resource("/a", ["v": 1]), url: Graph.url("/a")),
            status: 200, headers: ["Cache-Control": "max-age=60"], etag: nil, lastModified: nil, isEmbedded: false,
            isStale: false, storedAt: received)
        let stored = StoredState(
            state: state, freshness: Freshness(until: now + .seconds(60)), cost: 1, embeds: [], items: [],
            varyNames: [])
        let row = DurableRow(
            key: StateKey(scope: [1], url: "https://api.example.com/a"), stored: stored, now: now, wallNow: received)
        let soon = try row.stored(now: now, wallNow: received.addingTimeInterval(30))
        #expect(!soon.isStale(at: now), "30 s after it was received, 60 s of freshness")
        let later = try row.stored(now: now, wallNow: received.addingTimeInterval(90))
        #expect(later.isStale(at: now), "fresh at quit, stale at the next launch")
        #expect(later.state.storedAt == received)
    }

    @Test func aRevalidationAfterARelaunchGetsA304AndNoBody() async throws {
        let directory = Directory()
        let requester = InMemoryRequester()
        let bodies = LockedValue(0)
        await requester.register(Graph.base + "/a") { request in
            if request.headers["If-None-Match"] == "\"7\"" {
                return ResourceResponse(
                    status: 304, headers: ["ETag": "\"7\"", "Cache-Control": "max-age=60"], url: request.url,
                    body: Data())
            }
            bodies.withLock { $0 += 1 }
            return ResourceResponse(
                headers: ["ETag": "\"7\"", "Cache-Control": "no-cache"], url: request.url,
                body: Graph.resource("/a", ["v": 7]).serialized())
        }
        func manager(_ store: ResourceStore) -> ResourceManager {
            var configuration = ResourceManager.Configuration()
            configuration.store = store
            return ResourceManager(requester: requester, configuration: configuration)
        }
        do {
            let store = ResourceStore(file: directory.file)
            _ = try await manager(store).resource(at: Graph.url("/a")).get()
            await store.flush()
        }
        let relaunched = ResourceStore(file: directory.file)
        let handle = manager(relaunched).resource(at: Graph.url("/a"))
        #expect(try #require(await handle.current).isStale, "no-cache: stale at once")
        let revalidated = try await handle.get()
        #expect(revalidated.resource.state["v"] == 7)
        #expect(!revalidated.isStale)
        #expect(bodies.get() == 1, "the 304 carried no body: the stored one is used")
        #expect(await requester.requestCount == 2)
        _ = try await handle.get()
        #expect(await requester.requestCount == 2, "the 304's max-age made it fresh")
    }

    @Test func anotherUsersStatesAreInvisibleAndWipingOneUserKeepsTheOthers() async throws {
        let directory = Directory()
        let api = await api()
        do {
            let store = ResourceStore(file: directory.file)
            let manager = await stateManager(api, store: store)
            _ = try await manager.resource(at: Graph.url("/orders/7"), options: user("alice")).get()
            _ = try await manager.resource(at: Graph.url("/orders/7"), options: user("bob")).get()
            await store.flush()
        }
        let store = ResourceStore(file: directory.file)
        let manager = await stateManager(api, store: store)
        #expect(await manager.resource(at: Graph.url("/orders/7"), options: user("carol")).current == nil)
        #expect(await manager.resource(at: Graph.url("/orders/7")).current == nil, "no credentials: another scope")
        await store.wipe(scope: manager.resource(at: Graph.url("/orders/7"), options: user("alice")))
        let again = ResourceStore(file: directory.file)
        let next = await stateManager(api, store: again)
        #expect(await next.resource(at: Graph.url("/orders/7"), options: user("alice")).current == nil)
        #expect(await next.resource(at: Graph.url("/orders/7"), options: user("bob")).current != nil)
        again.wipe()
        let last = await stateManager(api, store: ResourceStore(file: directory.file))
        #expect(await last.resource(at: Graph.url("/orders/7"), options: user("bob")).current == nil)
    }

    @Test func aWriteInvalidatesEveryUsersRowOnDiskEvenUnread() async throws {
        let directory = Directory()
        let api = await api()
        await api.answerWrites("/orders/7")
        do {
            let store = ResourceStore(file: directory.file)
            let manager = await stateManager(api, store: store)
            _ = try await manager.resource(at: Graph.url("/orders/7"), options: user("alice")).get()
            await store.flush()
        }
        do {
            // Bob's write, in a launch where Alice's row was never read.
            let store = ResourceStore(file: directory.file)
            let manager = await stateManager(api, store: store)
            _ = try await manager.resource(at: Graph.url("/orders/7"), options: user("bob")).put(
                .json(["status": "paid"]))
            await store.flush()
        }
        let manager = await stateManager(api, store: ResourceStore(file: directory.file))
        let alice = try #require(await manager.resource(at: Graph.url("/orders/7"), options: user("alice")).current)
        #expect(alice.isStale, "the resource changed for everyone")
    }

    /// `/items/0` … `/items/59`, each about 1 KiB: enough to pass a bound of 20,000 bytes.
    private func sixtyItemsOfAKilobyte() async -> ScriptedAPI {
        let api = ScriptedAPI()
        let padding = String(repeating: "x", count: 1_000)
        for index in 0..<60 {
            await api.serve("/items/\(index)", Graph.resource("/items/\(index)", ["padding": .string(padding)]))
        }
        return api
    }

    @Test func theRowsOnDiskStayWithinTheirBoundLeastRecentlyUsedFirst() async throws {
        let directory = Directory()
        let api = await sixtyItemsOfAKilobyte()
        let store = ResourceStore(file: directory.file, maximumBytesOnDisk: 20_000)
        let manager = await stateManager(api, store: store)
        for index in 0..<60 { _ = try await manager.resource(at: Graph.url("/items/\(index)")).get() }
        await store.flush()
        let totals = try #require(store.durable).totals()
        #expect(totals.bytes <= 20_000)
        #expect(totals.count >= 10 && totals.count < 60)
        let relaunched = await stateManager(api, store: ResourceStore(file: directory.file))
        #expect(await relaunched.resource(at: Graph.url("/items/59")).current != nil, "the newest stays")
        #expect(await relaunched.resource(at: Graph.url("/items/0")).current == nil, "the oldest went first")
    }

    /// Changes that pile up while the file is locked reach it as one batch: the rows' order
    /// of use must still be the order the states were stored in (it was the batch's
    /// dictionary order, so the bound evicted states at random).
    @Test func aBatchWritesItsRowsInTheOrderTheStatesWereStored() async throws {
        let directory = Directory()
        let api = await sixtyItemsOfAKilobyte()
        let events = Events()
        let store = ResourceStore(file: directory.file, maximumBytesOnDisk: 20_000, onDiskEvent: events.handler)
        let other = try SQLiteConnection(
            library: SQLiteLibrary.shared.get(), path: directory.file.path, busyMilliseconds: 0)
        try other.run("BEGIN IMMEDIATE")
        let manager = await stateManager(api, store: store)
        for index in 0..<60 { _ = try await manager.resource(at: Graph.url("/items/\(index)")).get() }
        await events.waitFor(.writeFailed)
        try other.run("COMMIT")
        await store.flush()
        let relaunched = await stateManager(api, store: ResourceStore(file: directory.file))
        var kept: [Int] = []
        for index in 0..<60 where await relaunched.resource(at: Graph.url("/items/\(index)")).current != nil {
            kept.append(index)
        }
        #expect(kept.count >= 10 && kept == Array((60 - kept.count)..<60), "the most recently stored stay: \(kept)")
    }

    @Test func aFileFromANewerVersionIsSetAsideAndAFreshStoreStarts() async throws {
        let directory = Directory()
        let api = await api()
        try await directory.launchGettingTheOrder(api)
        let connection = try directory.connection()
        try connection.run("PRAGMA user_version=99")
        let events = Events()
        let store = ResourceStore(file: directory.file, onDiskEvent: events.handler)
        #expect(store.persistenceError == nil)
        #expect(await events.kinds(of: store) == [.setAside])
        let manager = await stateManager(api, store: store)
        #expect(await manager.resource(at: Graph.url("/orders/7")).current == nil, "never a newer layout's rows")
        #expect(try await manager.resource(at: Graph.url("/orders/7")).get().resource.state["status"] == "open")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(names.contains { $0.hasPrefix("states.sqlite.unreadable-") })
    }

    @Test func aFileThatIsNotADatabaseIsSetAside() async throws {
        let directory = Directory()
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        try Data(repeating: 0x5a, count: 8_192).write(to: directory.file)
        let events = Events()
        let store = ResourceStore(file: directory.file, onDiskEvent: events.handler)
        #expect(store.persistenceError == nil)
        #expect(await events.kinds(of: store) == [.setAside])
        let message = try #require(events.all.first?.message)
        #expect(message.contains("states.sqlite") && message.contains("not a readable database"))
        let api = await api()
        #expect(try await stateManager(api, store: store).resource(at: Graph.url("/orders/7")).get().status == 200)
    }

    @Test func aStateWhoseBytesWereOverwrittenIsNeverServed() async throws {
        let directory = Directory()
        let api = await api()
        try await directory.launchGettingTheOrder(api)
        // The body's bytes change on disk, the way a bad sector or a stray write would.
        let connection = try directory.connection()
        try connection.run("UPDATE states SET body = CAST(replace(CAST(body AS TEXT), 'open', 'paid') AS BLOB)")
        let events = Events()
        let store = ResourceStore(file: directory.file, onDiskEvent: events.handler)
        let manager = await stateManager(api, store: store)
        #expect(await manager.resource(at: Graph.url("/orders/7")).current == nil, "a body no server sent")
        #expect(await events.kinds(of: store) == [.unreadableState])
        #expect(try await manager.resource(at: Graph.url("/orders/7")).get().resource.state["status"] == "open")
        #expect(await api.requester.count(for: Graph.base + "/orders/7") == 2)
    }

    @Test func aStoredBodyThatNoLongerParsesIsRemoved() async throws {
        let directory = Directory()
        let api = await api()
        try await directory.launchGettingTheOrder(api)
        let connection = try directory.connection()
        let rows = try connection.run(
            "SELECT scopes.fingerprint, url, variant, body, status, headers, received, fresh_until, invalidated, "
                + "embedded, vary FROM states JOIN scopes ON scopes.id = states.scope",
            columns: [.blob, .text, .text, .blob, .integer, .text, .real, .real, .integer, .integer, .text])
        let values = try #require(rows.first)
        // A row as consistent as a writer could make it, whose body is not JSON.
        let broken = DurableRow(
            scope: values[0].blob!, url: values[1].text!, variant: "", body: Data("{\"_links\": [".utf8), status: 200,
            headers: "", received: 0, freshUntil: Date().timeIntervalSince1970 + 600, isInvalidated: false,
            isEmbedded: false, vary: "")
        try connection.run("UPDATE states SET body = ?, checksum = ?", [.blob(broken.body), .integer(broken.checksum)])
        try connection.run("UPDATE states SET headers = '', received = 0, fresh_until = ?", [.real(broken.freshUntil)])
        let events = Events()
        let store = ResourceStore(file: directory.file, onDiskEvent: events.handler)
        let manager = await stateManager(api, store: store)
        #expect(await manager.resource(at: Graph.url("/orders/7")).current == nil)
        #expect(await events.kinds(of: store) == [.unreadableState])
        #expect(events.all.first?.message.contains("no longer parses") == true)
        #expect(store.durable?.totals().count == 0, "removed from the file")
    }

    @Test(arguments: [1, 2]) func anOlderLayoutIsMigrated(layout: Int) async throws {
        let directory = Directory()
        let api = await api()
        try await directory.launchGettingTheOrder(api)
        // Layout 2 as it was written: the fingerprint in each row, no `scopes` table.
        let connection = try directory.connection()
        try connection.run("ALTER TABLE states RENAME TO states_3")
        try connection.run("DROP INDEX states_used")
        try connection.run(
            """
            CREATE TABLE states(scope BLOB NOT NULL, url TEXT NOT NULL, variant TEXT NOT NULL, body BLOB NOT NULL,
            status INTEGER NOT NULL, headers TEXT NOT NULL, received REAL NOT NULL, fresh_until REAL NOT NULL,
            invalidated INTEGER NOT NULL, embedded INTEGER NOT NULL, used INTEGER NOT NULL, bytes INTEGER NOT NULL,
            vary TEXT NOT NULL DEFAULT '', checksum INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(url, scope, variant))
            """)
        try connection.run("CREATE INDEX states_used ON states(used)")
        try connection.run(
            "INSERT INTO states SELECT scopes.fingerprint, url, variant, body, status, headers, received, "
                + "fresh_until, invalidated, embedded, used, bytes, vary, checksum "
                + "FROM states_3 JOIN scopes ON scopes.id = states_3.scope")
        try connection.run("DROP TABLE states_3")
        try connection.run("DROP TABLE scopes")
        if layout == 1 {
            // Layout 1: no `vary`, no checksums.
            try connection.run("ALTER TABLE states DROP COLUMN checksum")
            try connection.run("ALTER TABLE states DROP COLUMN vary")
        }
        try connection.run("PRAGMA user_version=\(layout)")
        let events = Events()
        let store = ResourceStore(file: directory.file, onDiskEvent: events.handler)
        #expect(await events.kinds(of: store) == [.migrated])
        let manager = await stateManager(api, store: store)
        #expect(await manager.resource(at: Graph.url("/orders/7")).current?.resource.state["status"] == "open")
        #expect(events.all.isEmpty == false && events.all.allSatisfy { $0.kind == .migrated }, "no row unreadable")
        let fingerprints = try connection.run("SELECT count(*) FROM scopes", columns: [.integer])
        #expect(fingerprints.first?.first?.integer == 1)
    }

    @Test func aFileKeepsEachFingerprintOnceIn8KiBPages() async throws {
        let directory = Directory()
        let api = await api()
        for index in 0..<3 { await api.serve("/items/\(index)", Graph.resource("/items/\(index)", ["n": .int(index)])) }
        let store = ResourceStore(file: directory.file)
        let manager = await stateManager(api, store: store)
        _ = try await manager.resource(at: Graph.url("/orders/7"), options: user("alice")).get()
        for index in 0..<3 { _ = try await manager.resource(at: Graph.url("/items/\(index)")).get() }
        await store.flush()
        let connection = try directory.connection()
        // Set before the journal mode, or SQLite keeps its default of 4 KiB (it did).
        #expect(try connection.run("PRAGMA page_size", columns: [.integer]).first?.first?.integer == 8_192)
        let scopes = try connection.run("SELECT count(*) FROM scopes", columns: [.integer])
        #expect(scopes.first?.first?.integer == 2, "alice's and the anonymous scope")
        let kinds = try connection.run("SELECT DISTINCT typeof(scope) FROM states", columns: [.text])
        #expect(kinds.map { $0.first?.text } == ["integer"], "a row keeps its scope's number")
        #expect(try connection.run("SELECT count(*) FROM states", columns: [.integer]).first?.first?.integer == 4)
    }

    @Test func aFileThatCannotBeOpenedLeavesAStoreInMemoryWithATypedError() async throws {
        let directory = Directory()
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        let blocker = directory.url.appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: blocker)
        let store = ResourceStore(file: blocker.appendingPathComponent("states.sqlite"))
        let error = try #require(store.persistenceError)
        #expect(error.code == .storeUnavailable)
        #expect(error.message.contains("in memory only"))
        #expect(store.file == nil)
        let api = await api()
        let manager = await stateManager(api, store: store)
        _ = try await manager.resource(at: Graph.url("/orders/7")).get()
        _ = try await manager.resource(at: Graph.url("/orders/7")).get()
        #expect(await api.requester.count(for: Graph.base + "/orders/7") == 1, "the memory store still serves")
    }

    @Test func aFileLockedByAnotherConnectionDelaysTheWritesAndLosesNone() async throws {
        let directory = Directory()
        let events = Events()
        let store = ResourceStore(file: directory.file, onDiskEvent: events.handler)
        let other = try SQLiteConnection(
            library: SQLiteLibrary.shared.get(), path: directory.file.path, busyMilliseconds: 0)
        try other.run("BEGIN IMMEDIATE")
        let api = await api()
        let manager = await stateManager(api, store: store)
        _ = try await manager.resource(at: Graph.url("/orders/7")).get()
        // Served from memory while the file is locked.
        _ = try await manager.resource(at: Graph.url("/orders/7")).get()
        #expect(await api.requester.count(for: Graph.base + "/orders/7") == 1)
        await events.waitFor(.writeFailed)
        try other.run("COMMIT")
        await store.flush()
        let relaunched = await stateManager(api, store: ResourceStore(file: directory.file))
        #expect(await relaunched.resource(at: Graph.url("/orders/7")).current != nil)
    }
}

extension DurableStoreTests.Events {
    /// Returns once an event of `kind` arrived.
    func waitFor(_ kind: ResourceStore.DiskEvent.Kind) async {
        while !all.contains(where: { $0.kind == kind }) { try? await Task.sleep(for: .milliseconds(5)) }
    }
}
