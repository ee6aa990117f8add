/// The order in which keys were last used, for a least-recently-used bound: the one
/// eviction order of `ResponseCache` and `ResourceStore`.
///
/// Every use appends the key with a new stamp, which the owner keeps with the key's entry.
/// An older use of the same key stays in the queue until it reaches the front, where the
/// owner sees that its stamp is no longer the entry's and skips it. So a use and each
/// eviction cost amortised constant time, not a scan of every entry; the queue is rebuilt
/// from the live entries when stale uses outnumber them, so it stays proportional to them.
///
/// perf: in the module of its two owners, so it is specialised for their keys;
/// BENCHMARKS.md, "Why the hot paths look as they do".
struct RecencyQueue<Key: Sendable>: Sendable {
    private var uses: [(key: Key, stamp: UInt64)] = []
    /// Where the queue starts in ``uses``: popping moves it rather than shifting the array.
    private var head = 0
    private var clock: UInt64 = 0
    /// The array's length past which it asks to be rebuilt: twice what the last rebuild kept.
    private var rebuildLength = 64

    /// An empty queue.
    init() {}

    /// Records a use of `key` and returns its stamp, for the owner to keep with the entry.
    mutating func use(_ key: Key) -> UInt64 {
        clock += 1
        uses.append((key, clock))
        return clock
    }

    /// The least recent use not taken yet, taken: the owner evicts its key when `stamp` is
    /// still the entry's, and skips it otherwise (the entry was used since, or is gone).
    mutating func takeOldest() -> (key: Key, stamp: UInt64)? {
        guard head < uses.count else { return nil }
        defer {
            head += 1
            if head == uses.count {
                uses.removeAll(keepingCapacity: true)
                head = 0
            }
        }
        return uses[head]
    }

    /// Whether stale and taken uses have piled up: the owner then calls ``rebuild(from:)``.
    var needsRebuild: Bool { uses.count > rebuildLength }

    /// Replaces the queue with the live entries' last uses (their keys and stamps), oldest first.
    mutating func rebuild(from live: [(key: Key, stamp: UInt64)]) {
        // The stamps are sorted, not the entries: each entry moves once, not n log n times.
        var order = live.indices.map { (stamp: live[$0].stamp, index: $0) }
        order.sort { $0.stamp < $1.stamp }
        uses = order.map { live[$0.index] }
        head = 0
        rebuildLength = max(64, 2 * uses.count)
    }
}
