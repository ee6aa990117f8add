import Foundation
import HalleyHAL

/// The store's states, read and changed only under its lock: storing with the byte bound,
/// least recently used first, finding the state a request selects, and the reads.
struct StateStorage: Sendable {
    var states: [StateKey: StoredState] = [:]
    /// For each normalised URL, the states that embed it, list it as an item or name it in an
    /// `inv-by` link: where its invalidation and its new states spread.
    private(set) var dependents: [String: Set<StateKey>] = [:]
    /// For each normalised URL, the keys of its states, every scope's and every variant's: a
    /// write's target found without reading every state.
    private var keysOfURL: [String: Set<StateKey>] = [:]
    var bytes = 0
    /// The order of last uses: what eviction takes first.
    private var recency = RecencyQueue<StateKey>()
    /// The store's order of changes, for ``StoredState/sequence``.
    private var sequence: UInt64 = 0
    let maximumBytes: Int
    let defaultFreshness: Duration
    /// Whether an embedded copy may answer a `get()` (see ``ResourceStore``).
    let embeddedCopiesAreComplete: Bool
    /// Where states live beyond memory (a durable store's file); `nil` for memory only.
    var persistence: (any StatePersistence)?

    /// The relation that lists a collection's items (the HAL convention, and IANA's `item`).
    static let itemRelation = "item"

    init(maximumBytes: Int, defaultFreshness: Duration, embeddedCopiesAreComplete: Bool) {
        self.maximumBytes = maximumBytes
        self.defaultFreshness = defaultFreshness
        self.embeddedCopiesAreComplete = embeddedCopiesAreComplete
    }

    // MARK: Finding

    /// The key of the state a request of `scope` selects at `url`: same credentials, and the
    /// request's values of the headers the state's response varied on equal the state's (RFC
    /// 9111, section 4.1). A state fetched from its own URL wins over an embedded copy, then
    /// the newest.
    func key(of url: String, scope: StateScope) -> StateKey? {
        // Most responses vary on nothing: their one state answers every request of the scope.
        let plain = StateKey(scope: scope.credentials, url: url)
        if let stored = states[plain], stored.varyNames.isEmpty, !stored.state.isEmbedded { return plain }
        var best: (key: StateKey, stored: StoredState)?
        for key in keysOfURL[url] ?? [] where key.scope == scope.credentials {
            guard let stored = states[key], scope.headers.variant(for: stored.varyNames) == key.variant else {
                continue
            }
            if let current = best?.stored {
                let better =
                    current.state.isEmbedded != stored.state.isEmbedded
                    ? current.state.isEmbedded : stored.sequence > current.sequence
                guard better else { continue }
            }
            best = (key, stored)
        }
        return best?.key
    }

    /// The key a response that said `Vary: varyNames` to a request of `scope` is stored under.
    static func key(of url: String, scope: StateScope, varyNames: [String]) -> StateKey {
        StateKey(scope: scope.credentials, url: url, variant: scope.headers.variant(for: varyNames))
    }

    /// The state of `key`, marked as used.
    /// One lookup of the key, and the state changed in place (not copied out and back).
    mutating func use(_ key: StateKey) -> StoredState? {
        guard let index = states.index(forKey: key) else { return nil }
        let stamp = used(key)
        states.values[index].lastUsed = stamp
        return states.values[index]
    }

    /// Whether `stored` may answer a request with no exchange at `now`.
    func isUsable(_ stored: StoredState, at now: ContinuousClock.Instant) -> Bool {
        !stored.isStale(at: now) && (embeddedCopiesAreComplete || !stored.state.isEmbedded)
    }

    /// The document a request of `scope` may use with no request at `now`, marked as used:
    /// one lookup in the common case, and only the document copied out (a traversal asks for
    /// every resource).
    mutating func freshResource(_ url: String, scope: StateScope, at now: ContinuousClock.Instant) -> HALResource? {
        // The common case in one lookup: a state that varies on nothing, fetched from its URL.
        let plain = StateKey(scope: scope.credentials, url: url)
        var found = states.index(forKey: plain)
        var key = plain
        if let index = found, !Self.inPlace(&states.values[index], { $0.varyNames.isEmpty && !$0.state.isEmbedded }) {
            found = nil
        }
        if found == nil {
            guard let selected = self.key(of: url, scope: scope) else { return nil }
            key = selected
            found = states.index(forKey: selected)
        }
        guard let index = found else { return nil }
        // perf: the state is read in place (an inout access), not copied out, which retained
        // and released each of its fields; BENCHMARKS.md, "Why the hot paths look as they do".
        let complete = embeddedCopiesAreComplete
        let read: (usable: Bool, resource: HALResource?) = Self.inPlace(&states.values[index]) { stored in
            guard !stored.isStale(at: now), complete || !stored.state.isEmbedded else { return (false, nil) }
            return (true, stored.hasNewerItems ? nil : stored.state.resource)
        }
        guard read.usable else { return nil }
        let stamp = used(key)
        states.values[index].lastUsed = stamp
        return read.resource ?? composed(states.values[index], key: key).resource
    }

    /// Runs `body` on `value` where it is, so that reading a few fields copies nothing else.
    private static func inPlace<Result>(_ value: inout StoredState, _ body: (inout StoredState) -> Result) -> Result {
        body(&value)
    }

    // MARK: Reading

    /// `key`'s state as read at `now`: composed (see ``composed(_:key:)``), stale when
    /// invalidated or past its freshness.
    func view(_ key: StateKey, at now: ContinuousClock.Instant) -> ResourceState? {
        guard let stored = states[key] else { return nil }
        var state = composed(stored, key: key)
        state.isStale = stored.isStale(at: now)
        return state
    }

    /// `key`'s state as a response just brought it: stale only when something invalidated it.
    func current(_ key: StateKey) -> ResourceState? {
        guard let stored = states[key] else { return nil }
        var state = composed(stored, key: key)
        state.isStale = stored.isInvalidated
        return state
    }

    /// A collection read now: the server's document with each embedded item replaced by the
    /// item's newer state from its own URL, so a list shows an edit with no refetch. What is
    /// stored stays as the server sent it; the composed view carries no validators, since no
    /// server sent that body. Anything else reads as stored.
    func composed(_ stored: StoredState, key: StateKey) -> ResourceState {
        guard stored.hasNewerItems, case .object(var embedded)? = stored.state.resource.json["_embedded"],
            let listed = embedded[Self.itemRelation]
        else { return stored.state }
        let base = stored.state.url
        var replaced = false
        func newer(_ value: JSONValue) -> JSONValue {
            guard case .object(let copy) = value, let href = copy["_links"]?["self"]?["href"]?.stringValue,
                let own = URLResolution.resolve(href, against: base),
                let item = newestFetched(URLNormalization.normalized(own).absoluteString, scope: key.scope),
                item.sequence > stored.sequence
            else { return value }
            replaced = true
            return .object(item.state.resource.json)
        }
        switch listed {
        case .array(let copies): embedded[Self.itemRelation] = .array(copies.map(newer))
        default: embedded[Self.itemRelation] = newer(listed)
        }
        var json = stored.state.resource.json
        json["_embedded"] = .object(embedded)
        guard replaced, let resource = try? HALResource(json: .object(json), url: base) else { return stored.state }
        var headers = HeaderFields()
        for field in stored.state.headers where !["etag", "last-modified"].contains(field.name.lowercased()) {
            headers[field.name] = field.value
        }
        return ResourceState(
            url: base, resource: resource, status: stored.state.status, headers: headers, etag: nil,
            lastModified: nil, isEmbedded: stored.state.isEmbedded, isStale: stored.state.isStale,
            storedAt: stored.state.storedAt)
    }

    /// The newest state of `url` in `scope` fetched from its own URL (any variant).
    private func newestFetched(_ url: String, scope: [UInt8]) -> StoredState? {
        var newest: StoredState?
        for key in keysOfURL[url] ?? [] where key.scope == scope {
            guard let stored = states[key], !stored.state.isEmbedded else { continue }
            if let current = newest, current.sequence >= stored.sequence { continue }
            newest = stored
        }
        return newest
    }

    // MARK: Changing

    /// Keeps `stored` for `key` (or forgets `key` when the response said `no-store`), then
    /// evicts down to the bound. Whether observers hear of it is the caller's decision.
    ///
    /// - Parameter persist: `false` for a state just read from ``persistence``.
    mutating func put(_ stored: StoredState, for key: StateKey, storable: Bool, persist: Bool = true) {
        remove(key)
        guard storable, stored.cost <= maximumBytes else { return }
        var stored = stored
        stored.lastUsed = used(key)
        sequence += 1
        stored.sequence = sequence
        states[key] = stored
        keysOfURL[key.url, default: []].insert(key)
        bytes += stored.cost
        for url in stored.dependencies { dependents[url, default: []].insert(key) }
        if persist { persistence?.stored(stored, at: key) }
        evict(keeping: key)
    }

    /// - Parameter fromDisk: `false` when memory lets it go to fit its bound (``persistence``
    ///   keeps it).
    @discardableResult
    mutating func remove(_ key: StateKey, fromDisk: Bool = true) -> StoredState? {
        guard let removed = states.removeValue(forKey: key) else { return nil }
        if fromDisk { persistence?.removed(key) }
        bytes -= removed.cost
        keysOfURL[key.url]?.remove(key)
        if keysOfURL[key.url]?.isEmpty == true { keysOfURL[key.url] = nil }
        for url in removed.dependencies {
            dependents[url]?.remove(key)
            if dependents[url]?.isEmpty == true { dependents[url] = nil }
        }
        return removed
    }

    /// Forgets every state of `url` that a request of `scope` would select: what a new answer
    /// to that request replaces.
    mutating func removeSelected(_ url: String, scope: StateScope) {
        for key in keysOfURL[url] ?? [] where key.scope == scope.credentials {
            guard let stored = states[key], scope.headers.variant(for: stored.varyNames) == key.variant else {
                continue
            }
            remove(key)
        }
    }

    /// The keys of every scope's and every variant's state of `url`.
    func keys(of url: String) -> [StateKey] {
        Array(keysOfURL[url] ?? [])
    }

    /// The first of `url`'s states (any scope, any variant) that `matches`, without copying
    /// its keys.
    func firstState(of url: String, where matches: (StoredState) -> Bool) -> StoredState? {
        guard let keys = keysOfURL[url] else { return nil }
        for key in keys {
            if let state = states[key], matches(state) { return state }
        }
        return nil
    }

    /// Calls `body` with each of `url`'s states (any scope, any variant).
    func forEachState(of url: String, _ body: (StoredState) -> Void) {
        for key in keysOfURL[url] ?? [] {
            if let state = states[key] { body(state) }
        }
    }

    /// A use of `key`: its stamp, for the state's ``StoredState/lastUsed``.
    private mutating func used(_ key: StateKey) -> UInt64 {
        if recency.needsRebuild {
            // perf: each state's stamp read in place; `states.map` copied every state out
            // (BENCHMARKS.md, "Why the hot paths look as they do").
            var live: [(key: StateKey, stamp: UInt64)] = []
            live.reserveCapacity(states.count)
            var index = states.startIndex
            while index != states.endIndex {
                live.append((states.keys[index], Self.inPlace(&states.values[index]) { $0.lastUsed }))
                states.formIndex(after: &index)
            }
            recency.rebuild(from: live)
        }
        return recency.use(key)
    }

    /// Drops the least recently used states until the bytes fit, never `kept` (just stored).
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
            remove(key, fromDisk: false)
            persistence?.evicted(key)
        }
    }
}
