import Foundation
import HalleyHAL

/// The durable store's side of ``StatePersistence``: lazy reads, and writes behind the
/// caller's back.
///
/// Changes are coalesced per state (the last one wins) and written by one serial queue in
/// batched transactions, so a traversal that stores thousands of states waits for none of
/// them. A state's first use since launch reads its rows (nothing is read at open); what is
/// pending is read from the queue, so a state evicted from memory before it reached the disk
/// is never read older from the file.
final class DurableStates: StatePersistence {
    /// Where the states of one URL in one scope are.
    private struct Slot: Hashable, Sendable {
        let scope: [UInt8]
        let url: String

        /// The scope's first eight bytes as one word (a SHA-256 digest: as good a hash as all
        /// of it), as ``StateKey`` hashes it: hashing 32 bytes one at a time cost more than
        /// the lookup.
        func hash(into hasher: inout Hasher) {
            hasher.combine(Self.word(scope))
            hasher.combine(url)
        }

        static func word<Bytes: ContiguousBytes>(_ bytes: Bytes) -> UInt64 {
            var word: UInt64 = 0
            bytes.withUnsafeBytes { bytes in
                withUnsafeMutableBytes(of: &word) {
                    $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.prefix(8)))
                }
            }
            return word
        }
    }

    private enum Pending: Sendable {
        case put(StoredState)
        case delete
        case touch
    }

    /// A change waiting to be written, and when it was made (counted).
    private struct Queued: Sendable {
        let change: Pending
        let order: UInt64
    }

    private struct Queue: Sendable {
        /// The changes not yet written, by slot and variant.
        var pending: [Slot: [String: Queued]] = [:]
        /// Counts changes: a batch writes its changes in the order they were made, which is
        /// the order of use the file's bound evicts by.
        var changesMade: UInt64 = 0
        /// Whether a drain is scheduled on the writer queue.
        var isScheduled = false
        /// Slots read since launch (or since their states left memory): not read again.
        var consulted: Set<Slot> = []
        /// The database in use; replaced by a fresh one when the file turns out corrupt.
        var database: StateDatabase?
        /// Digests of the slots the file holds (read in the background after open), so a URL
        /// stored nowhere costs no query; `nil` until read. A digest that collides costs one
        /// query, never a wrong answer.
        var onDisk: Set<Int>?
        /// The slots written while ``onDisk`` was being read: added to it once it is.
        var writtenMeanwhile: Set<Int> = []
        /// Counts drains, so an idle checkpoint knows no batch came since it was planned.
        var drains = 0
    }

    let file: URL
    let salt: [UInt8]
    let maximumBytes: Int
    private let events: @Sendable (ResourceStore.DiskEvent) -> Void
    private let queue = LockedValue(Queue())
    private let writer = DispatchQueue(label: "halley.resource-store.writer")
    /// Events go out in order from a queue of their own: never from under the store's lock,
    /// where an app's handler that used the store would wait for itself.
    private let notifier = DispatchQueue(label: "halley.resource-store.events")

    /// The most slots remembered as read: past it the memory is cleared (a slot read again
    /// finds its states in memory and skips them), so a server that reads millions of URLs
    /// keeps a bounded set.
    private static let consultedLimit = 100_000

    init(
        file: URL, maximumBytes: Int, events: @escaping @Sendable (ResourceStore.DiskEvent) -> Void
    ) throws(HalleyError) {
        let database = try StateDatabase(file: file, events: events)
        self.file = file
        self.salt = database.salt
        self.maximumBytes = maximumBytes
        self.events = events
        queue.withLock { $0.database = database }
        // First on the writer's queue: before any batch of this store.
        writer.async { self.readDigests() }
    }

    private static func digest(_ scope: Data, _ url: String) -> Int {
        var hasher = Hasher()
        hasher.combine(Slot.word(scope))
        hasher.combine(url)
        return hasher.finalize()
    }

    private static func digest(_ slot: Slot) -> Int {
        var hasher = Hasher()
        hasher.combine(Slot.word(slot.scope))
        hasher.combine(slot.url)
        return hasher.finalize()
    }

    private func readDigests() {
        guard let database = queue.withLock({ $0.database }) else { return }
        guard let digests = try? database.slotDigests(Self.digest) else { return }
        queue.withLock { queue in
            queue.onDisk = digests.union(queue.writtenMeanwhile)
            queue.writtenMeanwhile = []
        }
    }

    // MARK: StatePersistence

    func load(_ url: String, scope: [UInt8], now: ContinuousClock.Instant) -> [(key: StateKey, stored: StoredState)] {
        let slot = Slot(scope: scope, url: url)
        let found = queue.withLock { queue -> (StateDatabase?, [String: Queued])? in
            guard !queue.consulted.contains(slot) else { return nil }
            if queue.consulted.count >= Self.consultedLimit { queue.consulted.removeAll(keepingCapacity: true) }
            queue.consulted.insert(slot)
            let pending = queue.pending[slot] ?? [:]
            if pending.isEmpty, let onDisk = queue.onDisk, !onDisk.contains(Self.digest(slot)) {
                return (nil, pending)
            }
            return (queue.database, pending)
        }
        guard let (database, pending) = found else { return [] }
        var loaded: [(key: StateKey, stored: StoredState)] = []
        for (variant, queued) in pending {
            if case .put(let stored) = queued.change {
                loaded.append((StateKey(scope: scope, url: url, variant: variant), stored))
            }
        }
        guard let database else { return loaded }
        let reads: [StateDatabase.Read]
        do {
            reads = try database.rows(url: url, scope: scope)
        } catch {
            fail(error, database: database, doing: "reading the states of \(url)")
            return loaded
        }
        let wallNow = Date()
        for read in reads {
            // What is pending is newer than what the file has (a put) or says it is gone.
            guard pending[read.row.variant] == nil || pending[read.row.variant].map({ Self.isTouch($0.change) }) == true
            else {
                continue
            }
            let key = read.row.key
            do throws(DurableRow.Unreadable) {
                guard read.isIntact else {
                    throw DurableRow.Unreadable(message: "the stored state of \(url) has bytes that were never written")
                }
                loaded.append((key, try read.row.stored(now: now, wallNow: wallNow)))
                enqueue(.touch, at: key)
            } catch {
                report(
                    ResourceStore.DiskEvent(
                        kind: .unreadableState, file: file,
                        message: "\(error.message) in the resource store at \(file.path); it was removed"))
                enqueue(.delete, at: key)
            }
        }
        return loaded
    }

    private static func isTouch(_ change: Pending) -> Bool {
        if case .touch = change { return true }
        return false
    }

    func stored(_ stored: StoredState, at key: StateKey) {
        enqueue(.put(stored), at: key)
    }

    func removed(_ key: StateKey) {
        enqueue(.delete, at: key)
    }

    func evicted(_ key: StateKey) {
        // Read again from the file (or the queue) on its next use.
        _ = queue.withLock { $0.consulted.remove(Slot(scope: key.scope, url: key.url)) }
    }

    // MARK: Writing

    private func enqueue(_ change: Pending, at key: StateKey) {
        let slot = Slot(scope: key.scope, url: key.url)
        let schedule = queue.withLock { queue -> Bool in
            if case .touch = change, queue.pending[slot]?[key.variant] != nil { return false }
            queue.changesMade += 1
            queue.pending[slot, default: [:]][key.variant] = Queued(change: change, order: queue.changesMade)
            if case .put = change {
                let digest = Self.digest(slot)
                if queue.onDisk != nil {
                    queue.onDisk?.insert(digest)
                } else {
                    queue.writtenMeanwhile.insert(digest)
                }
            }
            guard !queue.isScheduled else { return false }
            queue.isScheduled = true
            return true
        }
        if schedule { writer.async { self.drain() } }
    }

    /// Writes what is pending, batch after batch, until nothing is.
    private func drain() {
        while true {
            guard let database = queue.withLock({ $0.database }) else {
                queue.withLock {
                    $0.pending.removeAll()
                    $0.isScheduled = false
                }
                return
            }
            // The batch is taken while the writer's connection is held, so a wipe (which also
            // holds it) never runs between taking a batch and writing it.
            let finished = database.holdingWriter { () -> Bool in
                let batch = queue.withLock { queue -> [Slot: [String: Queued]]? in
                    guard !queue.pending.isEmpty else {
                        queue.isScheduled = false
                        queue.drains += 1
                        return nil
                    }
                    defer { queue.pending.removeAll(keepingCapacity: true) }
                    return queue.pending
                }
                guard let batch else { return true }
                write(batch, to: database)
                return false
            }
            if finished {
                checkpointWhenIdle()
                return
            }
        }
    }

    /// Empties the WAL once no batch came for a moment (a traversal's writes come in many
    /// small drains: one checkpoint after them, not one each).
    private func checkpointWhenIdle() {
        let planned = queue.withLock { $0.drains }
        writer.asyncAfter(deadline: .now() + 0.25) {
            let (idle, database) = self.queue.withLock { ($0.drains == planned && !$0.isScheduled, $0.database) }
            if idle { database?.checkpoint() }
        }
    }

    private func write(_ batch: [Slot: [String: Queued]], to database: StateDatabase) {
        let now = ContinuousClock.now
        let wallNow = Date()
        var ordered: [(key: StateKey, queued: Queued)] = []
        ordered.reserveCapacity(batch.count)
        for (slot, variants) in batch {
            for (variant, queued) in variants {
                ordered.append((StateKey(scope: slot.scope, url: slot.url, variant: variant), queued))
            }
        }
        // In the order they were made: each row's use is stamped in this order.
        ordered.sort { $0.queued.order < $1.queued.order }
        let changes: [StateDatabase.Change] = ordered.map { key, queued in
            switch queued.change {
            case .put(let stored): .put(DurableRow(key: key, stored: stored, now: now, wallNow: wallNow))
            case .delete: .delete(key)
            case .touch: .touch(key)
            }
        }
        do {
            try database.write(changes, maximumBytes: maximumBytes)
        } catch  where error.isBusy {
            // Another process holds the file: the batch goes back (newer changes win) and is
            // tried again shortly.
            queue.withLock { queue in
                for (slot, variants) in batch {
                    for (variant, change) in variants where queue.pending[slot]?[variant] == nil {
                        queue.pending[slot, default: [:]][variant] = change
                    }
                }
            }
            report(
                ResourceStore.DiskEvent(
                    kind: .writeFailed, file: file,
                    message: "the resource store at \(file.path) is locked by another connection; "
                        + "\(changes.count) changes wait and are tried again"))
            Thread.sleep(forTimeInterval: 0.05)
        } catch {
            fail(error, database: database, doing: "writing \(changes.count) changes")
        }
    }

    /// A failed read or write: a corrupt file is set aside for a fresh one (same salt, so the
    /// states in memory keep their keys); anything else (a read-only or full disk) is told and
    /// the states stay in memory.
    private func fail(_ error: SQLiteConnection.Failure, database: StateDatabase, doing what: String) {
        guard error.isCorruption else {
            report(
                ResourceStore.DiskEvent(
                    kind: .writeFailed, file: file,
                    message: "the resource store at \(file.path) failed \(what) (\(error)); the states stay in memory"))
            return
        }
        queue.withLock { queue in
            guard queue.database === database else { return }
            queue.database = nil
            queue.consulted.removeAll()
        }
        StateDatabase.setAside(file, because: "it is corrupt (\(error.message))", events: report)
        let fresh = try? StateDatabase(file: file, salt: salt, events: report)
        queue.withLock { $0.database = fresh }
    }

    private func report(_ event: ResourceStore.DiskEvent) {
        notifier.async { [events] in events(event) }
    }

    // MARK: Store-wide

    /// Forgets `scope`'s states (every scope's when `nil`), pending and on disk, before return.
    func wipe(scope: [UInt8]?) {
        guard let database = queue.withLock({ $0.database }) else { return }
        database.holdingWriter {
            queue.withLock { queue in
                if let scope {
                    queue.pending = queue.pending.filter { $0.key.scope != scope }
                    queue.consulted = queue.consulted.filter { $0.scope != scope }
                } else {
                    queue.pending.removeAll()
                    queue.consulted.removeAll()
                }
            }
            do throws(SQLiteConnection.Failure) {
                try database.wipe(scope: scope)
            } catch {
                fail(error, database: database, doing: "wiping states")
            }
        }
    }

    /// Marks every scope's rows of `urls` stale and deletes every scope's rows of `deleted`,
    /// for the states not in memory (those in memory reach the file through the queue).
    func invalidate(_ urls: [String], deleting deleted: [String]) {
        guard let database = queue.withLock({ $0.database }) else { return }
        do {
            try database.invalidate(urls, deleting: deleted)
        } catch {
            fail(error, database: database, doing: "invalidating \(urls.count + deleted.count) URLs")
        }
    }

    /// Returns once every change made before the call was written (or failed), and the WAL
    /// was copied into the file.
    func flush() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            writer.async {
                self.queue.withLock { $0.database }?.checkpoint()
                done.resume()
            }
        }
    }

    /// Returns once every event reported before the call was handed to the app's handler.
    func flushEvents() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            notifier.async { done.resume() }
        }
    }

    /// ``flush()`` for synchronous callers.
    func flushNow() {
        writer.sync {}
    }

    /// The rows on disk and their bytes.
    func totals() -> (count: Int, bytes: Int) {
        guard let database = queue.withLock({ $0.database }) else { return (0, 0) }
        return (try? database.totals()) ?? (0, 0)
    }
}
