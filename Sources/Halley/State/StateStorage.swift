import Foundation

/// The store's states, read and changed only under its lock: storing with the byte bound,
/// least recently used first, and the reads.
struct StateStorage: Sendable {
    var states: [StateKey: StoredState] = [:]
    /// For each normalised URL, the states that embed it or name it in an `inv-by` link:
    /// where its invalidation and its new states spread.
    private(set) var dependents: [String: Set<StateKey>] = [:]
    /// For each normalised URL, the scopes that hold a state of it: a write's target found
    /// without reading every state.
    private var scopesOfURL: [String: Set<[UInt8]>] = [:]
    var bytes = 0
    /// The order of last uses: what eviction takes first.
    private var recency = RecencyQueue<StateKey>()
    let maximumBytes: Int
    let defaultFreshness: Duration

    init(maximumBytes: Int, defaultFreshness: Duration) {
        self.maximumBytes = maximumBytes
        self.defaultFreshness = defaultFreshness
    }

    /// The state of `key`, marked as used.
    /// One lookup of the key, and the state changed in place (not copied out and back).
    mutating func use(_ key: StateKey) -> StoredState? {
        guard let index = states.index(forKey: key) else { return nil }
        let stamp = used(key)
        states.values[index].lastUsed = stamp
        return states.values[index]
    }

    /// The document of `key` when it may be used with no request at `now`, marked as used:
    /// one lookup, and only the document copied out (a traversal asks for every resource).
    mutating func freshResource(_ key: StateKey, at now: ContinuousClock.Instant) -> HALResource? {
        guard let index = states.index(forKey: key), !states.values[index].isStale(at: now) else { return nil }
        let stamp = used(key)
        states.values[index].lastUsed = stamp
        return states.values[index].state.resource
    }

    /// Keeps `stored` for `key` (or forgets `key` when the response said `no-store`), then
    /// evicts down to the bound. Whether observers hear of it is the caller's decision.
    mutating func put(_ stored: StoredState, for key: StateKey, storable: Bool) {
        remove(key)
        guard storable, stored.cost <= maximumBytes else { return }
        var stored = stored
        stored.lastUsed = used(key)
        states[key] = stored
        scopesOfURL[key.url, default: []].insert(key.scope)
        bytes += stored.cost
        for url in stored.embeds.union(stored.invalidatedBy) { dependents[url, default: []].insert(key) }
        evict(keeping: key)
    }

    @discardableResult
    mutating func remove(_ key: StateKey) -> StoredState? {
        guard let removed = states.removeValue(forKey: key) else { return nil }
        bytes -= removed.cost
        scopesOfURL[key.url]?.remove(key.scope)
        if scopesOfURL[key.url]?.isEmpty == true { scopesOfURL[key.url] = nil }
        for url in removed.embeds.union(removed.invalidatedBy) {
            dependents[url]?.remove(key)
            if dependents[url]?.isEmpty == true { dependents[url] = nil }
        }
        return removed
    }

    /// The keys of every scope's state of `url`.
    func keys(of url: String) -> [StateKey] {
        (scopesOfURL[url] ?? []).map { StateKey(scope: $0, url: url) }
    }

    /// The states of `scope` that embed `url`.
    func embedders(of url: String, in scope: [UInt8]) -> [StateKey] {
        (dependents[url] ?? []).filter { $0.scope == scope && states[$0]?.embeds.contains(url) == true }
    }

    /// A use of `key`: its stamp, for the state's ``StoredState/lastUsed``.
    private mutating func used(_ key: StateKey) -> UInt64 {
        if recency.needsRebuild {
            let live = states.map { (key: $0.key, stamp: $0.value.lastUsed) }
            recency.rebuild(from: live)
        }
        return recency.use(key)
    }

    /// Drops the least recently used states until the bytes fit, never `kept` (just stored).
    /// Called after anything that adds bytes: a state stored, or the documents embedding a
    /// resource rewritten with its new state.
    mutating func evict(keeping kept: StateKey) {
        while bytes > maximumBytes, let (key, stamp) = recency.takeOldest() {
            // A use taken here is stale when the state was used since or is gone.
            guard states[key]?.lastUsed == stamp else { continue }
            guard key != kept else {
                // Only the state just stored is left (it fits alone): it stays, in the queue.
                let stamp = recency.use(key)
                states[key]?.lastUsed = stamp
                return
            }
            remove(key)
        }
    }
}
