import Foundation

/// The state an app or a server keeps between calls: one state per absolute URL per
/// credential scope, seeded by every fetched resource and the embedded resources it carries,
/// invalidated by writes and by the server's signals, with events per resource.
///
/// ```swift
/// var configuration = ResourceManager.Configuration()
/// configuration.store = ResourceStore(maximumBytes: 8_000_000, defaultFreshness: .seconds(30))
/// let manager = ResourceManager(configuration: configuration)
/// let order = manager.resource(at: URL(string: "https://api.example.com/orders/7")!)
/// let state = try await order.get()
/// ```
///
/// - **Isolated per credential scope**: states are keyed by URL plus a salted fingerprint of
///   the credentials the request carried (the rule of ``ResponseCache``), so two users
///   sharing a manager never see each other's state.
/// - **Fresh by HTTP**: a state is used with no request while younger than the `max-age` of
///   the response that stored it; `no-cache` revalidates every time, `no-store` is never
///   kept; without either, `defaultFreshness` (zero by default). Embedded copies inherit
///   their parent's freshness. Traversals over fresh state send no request.
/// - **Seeding never overwrites what is better**: an embedded copy (one with a `self` link on
///   its parent's origin) fills an empty slot or replaces an older copy, never a state
///   fetched from the resource's own URL; when it contradicts one, that state becomes stale.
/// - **Bounded**: at most `maximumBytes`, the least recently used states first.
public final class ResourceStore: Sendable {
    private let storage: LockedValue<StateStorage>
    private let subscribers = LockedValue<[StateKey: [ObjectIdentifier: EventMailbox]]>([:])
    private let inFlight = LockedValue<[StateKey: Task<ResourceState, any Error>]>([:])
    private let fingerprints = CredentialFingerprint()
    /// The most bytes kept: bodies, headers and a small fixed cost per state.
    public let maximumBytes: Int
    /// How long a state whose response said nothing about freshness is used with no request.
    public let defaultFreshness: Duration

    /// Creates an empty store.
    ///
    /// ```swift
    /// let store = ResourceStore(maximumBytes: 4_000_000, defaultFreshness: .seconds(10))
    /// ```
    ///
    /// - Parameters:
    ///   - maximumBytes: The bound on what is kept (16 MB by default).
    ///   - defaultFreshness: How long a state is fresh when its response has no `max-age` or
    ///     `no-cache` (zero: every `get()` revalidates).
    public init(maximumBytes: Int = 16_000_000, defaultFreshness: Duration = .zero) {
        self.maximumBytes = maximumBytes
        self.defaultFreshness = defaultFreshness
        storage = LockedValue(StateStorage(maximumBytes: maximumBytes, defaultFreshness: defaultFreshness))
    }

    /// The number of states kept, every credential scope's counted.
    ///
    /// ```swift
    /// print(ResourceStore().count)  // 0
    /// ```
    public var count: Int { storage.withLock { $0.states.count } }

    /// The bytes the states count against ``maximumBytes``.
    ///
    /// ```swift
    /// print(ResourceStore().totalBytes)  // 0
    /// ```
    public var totalBytes: Int { storage.withLock { $0.bytes } }

    /// Forgets every state (observers hear nothing: the resources did not change).
    ///
    /// ```swift
    /// ResourceStore().removeAll()
    /// ```
    public func removeAll() {
        storage.withLock { $0 = StateStorage(maximumBytes: maximumBytes, defaultFreshness: defaultFreshness) }
    }

    // MARK: Keys and reads

    /// Where the state for `request` (its URL, its credentials) lives.
    func key(for request: ResourceRequest) -> StateKey {
        StateKey(scope: scope(of: request), url: URLNormalization.normalized(request.url).absoluteString)
    }

    /// The stored state of `key`, fresh or not, marked as used.
    func stored(_ key: StateKey) -> StoredState? {
        storage.withLock { $0.use(key) }
    }

    /// The state of `key` when it may be used with no request.
    func fresh(_ key: StateKey, at now: ContinuousClock.Instant = .now) -> ResourceState? {
        guard let stored = stored(key), !stored.isStale(at: now) else { return nil }
        return stored.read(at: now)
    }

    /// ``fresh(_:at:)``'s document alone, read under the lock: a traversal over fresh state
    /// asks for every resource, so nothing else is copied out.
    private func freshResource(_ key: StateKey, at now: ContinuousClock.Instant = .now) -> HALResource? {
        storage.withLock { $0.freshResource(key, at: now) }
    }

    // MARK: Changes

    /// Stores a document fetched from its own URL; observers hear of it afterwards.
    func storeFetched(_ document: HALResource, response: ResourceResponse, key: StateKey, url: URL)
        -> ResourceState
    {
        var changes = StateChanges()
        let state = storage.withLock { storage in
            storage.storeFetched(document, response: response, url: url, key: key, now: .now, changes: &changes)
        }
        deliver(changes)
        return state
    }

    /// Records a `304` to a request made with `held`'s validators: `held` is current again,
    /// with the `304`'s headers and its freshness restarted (stored again when it was evicted
    /// meanwhile).
    func confirm(_ held: StoredState, key: StateKey, notModified: ResourceResponse) -> ResourceState {
        var headers = held.state.headers
        for field in notModified.headers
        where ["cache-control", "etag", "expires", "last-modified", "date"].contains(field.name.lowercased()) {
            headers[field.name] = field.value
        }
        let now = ContinuousClock.now
        let freshness = Freshness(headers: headers, now: now, defaultFreshness: defaultFreshness)
        let state = ResourceState(
            url: held.state.url, resource: held.state.resource, status: held.state.status, headers: headers,
            etag: headers["ETag"], lastModified: headers["Last-Modified"], isEmbedded: held.state.isEmbedded,
            isStale: false, storedAt: Date())
        let confirmed = StoredState(state: state, freshness: freshness, cost: held.cost, embeds: held.embeds)
        var changes = StateChanges()
        storage.withLock { storage in
            let wasInvalidated = storage.states[key]?.isInvalidated ?? held.isInvalidated
            storage.put(confirmed, for: key, storable: freshness.isStorable)
            // Observers were told it was stale: now it is current again.
            if wasInvalidated { changes.record(.updated(state), for: key) }
        }
        deliver(changes)
        return state
    }

    /// Runs `fetch` for `key` unless one runs already: concurrent callers share one request.
    func shared(_ key: StateKey, _ fetch: @escaping @Sendable () async throws -> ResourceState) async throws
        -> ResourceState
    {
        let task = inFlight.withLock { running -> Task<ResourceState, any Error> in
            if let task = running[key] { return task }
            let task = Task { try await fetch() }
            running[key] = task
            return task
        }
        defer { inFlight.withLock { if $0[key] == task { $0[key] = nil } } }
        return try await task.value
    }

    // MARK: Events

    /// Registers a consumer of `key`'s events, handing it the stored state first.
    func subscribe(_ key: StateKey) -> EventSubscription {
        let mailbox = EventMailbox()
        subscribers.withLock { $0[key, default: [:]][ObjectIdentifier(mailbox)] = mailbox }
        if let stored = storage.withLock({ $0.states[key] }) {
            mailbox.deliver(.updated(stored.read(at: .now)))
        }
        return EventSubscription(store: self, key: key, mailbox: mailbox)
    }

    func unsubscribe(_ mailbox: EventMailbox, from key: StateKey) {
        // One lookup of the key: every consumer of an update ends with this, under one lock.
        subscribers.withLock { subscribers in
            guard let index = subscribers.index(forKey: key) else { return }
            subscribers.values[index][ObjectIdentifier(mailbox)] = nil
            if subscribers.values[index].isEmpty { subscribers.remove(at: index) }
        }
    }

    /// The number of registered consumers (to show that none leak).
    var subscriberCount: Int { subscribers.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// Delivers one response's events, after all of its states are stored.
    private func deliver(_ changes: StateChanges) {
        guard !changes.isEmpty else { return }
        let targets = subscribers.withLock { subscribers in
            changes.ordered.compactMap { change in
                subscribers[change.key].map { (Array($0.values), change.event) }
            }
        }
        for (mailboxes, event) in targets {
            for mailbox in mailboxes { mailbox.deliver(event) }
        }
    }
}

extension ResourceStore: ResponseRecording {
    func scope(of request: ResourceRequest) -> [UInt8] {
        fingerprints.credentials(of: request)
    }

    func freshDocument(at url: URL, scope: [UInt8]) -> HALResource? {
        freshResource(StateKey(scope: scope, url: URLNormalization.normalized(url).absoluteString))
    }

    func freshDocuments(at urls: [URL?], scopes: [[UInt8]?]) -> [HALResource?] {
        var keys: [StateKey?] = []
        keys.reserveCapacity(urls.count)
        for (url, scope) in zip(urls, scopes) {
            guard let url, let scope else {
                keys.append(nil)
                continue
            }
            keys.append(StateKey(scope: scope, url: URLNormalization.normalized(url).absoluteString))
        }
        let now = ContinuousClock.now
        return storage.withLock { storage in keys.map { key in key.flatMap { storage.freshResource($0, at: now) } } }
    }

    func recordFetched(_ response: ResourceResponse, document: HALResource, at url: URL, scope: [UInt8]) {
        let normalized = URLNormalization.normalized(url)
        let key = StateKey(scope: scope, url: normalized.absoluteString)
        _ = storeFetched(document, response: response, key: key, url: normalized)
    }

    func recordWrite(
        _ request: ResourceRequest, response: ResourceResponse, invalidation: ResponseInvalidation,
        parsing: HALParsingOptions
    ) {
        var changes = StateChanges()
        let key = key(for: request)
        let sentIfMatch = request.headers["If-Match"] != nil
        storage.withLock { storage in
            storage.applyWrite(
                invalidation, response: response, key: key, sentIfMatch: sentIfMatch, parsing: parsing, now: .now,
                changes: &changes)
        }
        deliver(changes)
    }
}
