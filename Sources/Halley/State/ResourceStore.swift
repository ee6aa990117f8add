import Foundation
import HalleyHAL
import HalleyTransport

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
/// - **One state per representation**: a response that says `Vary` is kept for the values its
///   request had of the headers it names (RFC 9111, section 4.1), so an `Accept-Language: fr`
///   handle never reads the English state; gets whose headers differ never share a request.
/// - **Only what a server sent**: a stored state is a response body (or an embedded copy cut
///   from one) with its validators, never rewritten. A document whose embedded copy is out of
///   date goes stale; a collection (a document whose `item` relation lists a resource) reads
///   with each item's newer state in place of its copy, and such a composed read carries no
///   validators.
/// - **Fresh by HTTP**: a state is used with no request while younger than the `max-age` of
///   the response that stored it; `no-cache` revalidates every time, `no-store` is never
///   kept; without either, `defaultFreshness` (zero by default). Embedded copies inherit
///   their parent's freshness. Traversals over fresh state send no request.
/// - **Seeding never overwrites what is better**: an embedded copy (one with a `self` link on
///   its parent's origin) fills an empty slot or replaces an older copy, never a state
///   fetched from the resource's own URL; when it contradicts one, that state becomes stale.
/// - **Embedded copies may be partial** (the HAL draft): a typed read that does not decode a
///   state that is only an embedded copy fetches the resource's own URL. With
///   `embeddedCopiesAreComplete: false`, such a state shows at once in ``ResourceHandle/current``
///   but every ``ResourceHandle/get()`` fetches.
/// - **Bounded**: at most `maximumBytes`, the least recently used states first.
public final class ResourceStore: Sendable {
    let storage: LockedValue<StateStorage>
    /// The consumers of each normalised URL's states; read and changed under the storage's lock
    /// (taken first), so a consumer registers, and hears of changes, in the store's order.
    private let subscribers = LockedValue<[String: [ObjectIdentifier: any StateConsumer]]>([:])
    private let inFlight = LockedValue<[FetchKey: SharedFetch]>([:])
    private let fingerprints: CredentialFingerprint
    /// The file the states are kept in, and the queue that writes them; `nil` in memory only.
    let durable: DurableStates?
    /// Why a store asked to keep its states in a file keeps them in memory only; `nil` when it
    /// keeps them in its file, or was never asked to.
    ///
    /// ```swift
    /// let store = ResourceStore(file: URL(fileURLWithPath: "/tmp/halley/states.sqlite"))
    /// if let problem = store.persistenceError { print(problem) }
    /// ```
    public let persistenceError: HalleyError?
    /// The optimistic edits shown over the states, never stored (see ``PendingEdits``); read
    /// and changed under the storage's lock (taken first).
    let pendingEdits = LockedValue(PendingEdits())
    /// When to ask again and what to forget (see ``RefreshTriggers``).
    let triggers = RefreshTriggers()
    /// The most bytes kept: bodies, headers and a small fixed cost per state.
    public let maximumBytes: Int
    /// How long a state whose response said nothing about freshness is used with no request.
    public let defaultFreshness: Duration
    /// Whether a state that is only an embedded copy answers ``ResourceHandle/get()`` (`true`:
    /// embedded copies are taken as complete representations).
    public let embeddedCopiesAreComplete: Bool

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
    public convenience init(maximumBytes: Int = 16_000_000, defaultFreshness: Duration = .zero) {
        self.init(maximumBytes: maximumBytes, defaultFreshness: defaultFreshness, embeddedCopiesAreComplete: true)
    }

    /// Creates an empty store, saying whether the API's embedded resources are complete.
    ///
    /// ```swift
    /// // Lists embed summaries: a detail screen shows one at once, then fetches the whole.
    /// let store = ResourceStore(maximumBytes: 4_000_000, defaultFreshness: .seconds(10), embeddedCopiesAreComplete: false)
    /// ```
    ///
    /// - Parameters:
    ///   - maximumBytes: The bound on what is kept.
    ///   - defaultFreshness: How long a state is fresh when its response has no `max-age` or
    ///     `no-cache`.
    ///   - embeddedCopiesAreComplete: `false` when embedded resources may be partial: a state
    ///     that is only an embedded copy is then shown by ``ResourceHandle/current`` and events,
    ///     but ``ResourceHandle/get()`` and traversals fetch the resource's own URL.
    public convenience init(maximumBytes: Int, defaultFreshness: Duration, embeddedCopiesAreComplete: Bool) {
        self.init(
            maximumBytes: maximumBytes, defaultFreshness: defaultFreshness,
            embeddedCopiesAreComplete: embeddedCopiesAreComplete, durable: nil, persistenceError: nil)
    }

    init(
        maximumBytes: Int, defaultFreshness: Duration, embeddedCopiesAreComplete: Bool, durable: DurableStates?,
        persistenceError: HalleyError?
    ) {
        self.maximumBytes = maximumBytes
        self.defaultFreshness = defaultFreshness
        self.embeddedCopiesAreComplete = embeddedCopiesAreComplete
        self.durable = durable
        self.persistenceError = persistenceError
        fingerprints = durable.map { CredentialFingerprint(salt: $0.salt) } ?? CredentialFingerprint()
        var storage = StateStorage(
            maximumBytes: maximumBytes, defaultFreshness: defaultFreshness,
            embeddedCopiesAreComplete: embeddedCopiesAreComplete)
        storage.persistence = durable
        self.storage = LockedValue(storage)
        triggers.start(for: self)
        triggers.scheduleSweeps(for: self)
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

    /// Forgets every state, in memory and in the store's file (observers hear nothing: the
    /// resources did not change). The same as ``wipe()``.
    ///
    /// ```swift
    /// ResourceStore().removeAll()
    /// ```
    public func removeAll() {
        wipe()
    }

    // MARK: Keys and reads

    /// Whose states `request` reads: its credentials and the header values that may select
    /// a representation.
    func stateScope(of request: ResourceRequest) -> StateScope {
        StateScope(credentials: scope(of: request), headers: SelectingHeaders(request))
    }

    /// The stored state a request of `scope` selects at `url` (normalised), fresh or not,
    /// marked as used, with its key.
    func stored(_ url: URL, scope: StateScope) -> (key: StateKey, stored: StoredState)? {
        storage.withLock { storage in
            storage.loadStored(url.absoluteString, scope: scope.credentials, now: .now)
            guard let key = storage.key(of: url.absoluteString, scope: scope), let stored = storage.use(key) else {
                return nil
            }
            return (key, stored)
        }
    }

    /// What a request of `scope` reads at `url` with no request, fresh or not.
    func read(_ url: URL, scope: StateScope, at now: ContinuousClock.Instant = .now) -> ResourceState? {
        storage.withLock { storage in
            storage.loadStored(url.absoluteString, scope: scope.credentials, now: now)
            guard let key = storage.key(of: url.absoluteString, scope: scope) else { return nil }
            _ = storage.use(key)
            return withEdits(storage.view(key, at: now), key: key, in: storage)
        }
    }

    /// The state a request of `scope` may use at `url` with no request.
    func fresh(_ url: URL, scope: StateScope, at now: ContinuousClock.Instant = .now) -> ResourceState? {
        storage.withLock { storage in
            storage.loadStored(url.absoluteString, scope: scope.credentials, now: now)
            guard let key = storage.key(of: url.absoluteString, scope: scope), let stored = storage.use(key),
                storage.isUsable(stored, at: now)
            else { return nil }
            return withEdits(storage.view(key, at: now), key: key, in: storage)
        }
    }

    // MARK: Changes

    /// Stores a document fetched from its own URL; observers hear of it under the same lock.
    func storeFetched(_ document: HALResource, response: ResourceResponse, url: URL, scope: StateScope)
        -> ResourceState
    {
        changing { storage, changes in
            storage.loadStored(url.absoluteString, scope: scope.credentials, now: .now)
            return storage.storeFetched(
                document, response: response, url: url, scope: scope, now: .now, changes: &changes)
        }
    }

    /// Records a `304` to a request made with `held`'s validators: `held` is current again,
    /// with the `304`'s headers and its freshness restarted (stored again when it was evicted
    /// meanwhile). The body stays the one the server sent and has just confirmed.
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
        let confirmed = StoredState(
            state: state, freshness: freshness, cost: held.cost, embeds: held.embeds, items: held.items,
            varyNames: held.varyNames)
        return changing { storage, changes in
            let wasInvalidated = storage.states[key]?.isInvalidated ?? held.isInvalidated
            storage.put(confirmed, for: key, storable: freshness.isStorable)
            // Observers were told it was stale: now it is current again.
            if wasInvalidated, let current = storage.current(key) {
                changes.record(.updated(current), for: key, varyNames: held.varyNames)
            }
            return storage.current(key) ?? state
        }
    }

    /// Runs `change` under the lock, then hands its events to the consumers, still under it:
    /// two responses for one URL reach every consumer in the order the store applied them.
    /// Observers hear the states with the optimistic edits shown over them (and `rejection` on
    /// those a rolled-back edit showed in).
    func changing<Value>(
        rejecting rejection: (PendingEdits.Target, RejectedEdit)? = nil,
        _ change: (inout StateStorage, inout StateChanges) -> Value
    ) -> Value {
        storage.withLock { storage in
            var changes = StateChanges()
            let value = change(&storage, &changes)
            storage.persist(changes)
            deliver(withEdits(changes, in: storage, rejecting: rejection))
            let now = ContinuousClock.now
            if triggers.sweepIsDue(at: now) {
                let edited = Set(pendingEdits.withLock { $0.edits.keys.map(\.url) })
                triggers.sweep(&storage, observed: Set(observedURLs()), edited: edited, at: now)
            }
            return value
        }
    }

    /// Where a get's request is shared: gets whose credentials, URL or selecting headers
    /// differ never share one (the answer may vary on any of them).
    struct FetchKey: Sendable, Hashable {
        let credentials: [UInt8]
        let url: String
        let headers: String
    }

    /// Runs `fetch` for `url` and `scope` unless one runs already: concurrent callers share
    /// one request. A cancelled caller ends at once with `CancellationError`; the request is
    /// cancelled when no caller waits for it any more.
    func shared(_ url: URL, scope: StateScope, _ fetch: @escaping @Sendable () async throws -> ResourceState)
        async throws -> ResourceState
    {
        let key = FetchKey(credentials: scope.credentials, url: url.absoluteString, headers: scope.headers.all)
        let (shared, id) = inFlight.withLock { running -> (SharedFetch, Int) in
            if let running = running[key], let id = running.join() { return (running, id) }
            let started = SharedFetch(fetch) { [inFlight] done in
                inFlight.withLock { if $0[key] === done { $0[key] = nil } }
            }
            running[key] = started
            // A new fetch has no one else to abandon it before this caller joins.
            return (started, started.join() ?? 0)
        }
        defer {
            if shared.isAbandoned { inFlight.withLock { if $0[key] === shared { $0[key] = nil } } }
        }
        return try await shared.wait(id)
    }

    // MARK: Events

    /// Registers a consumer of `url`'s states now, handing it the stored states first; it
    /// follows only those its handle's requests select once ``EventMailbox/resolve(_:)`` says
    /// whose they are.
    func subscribe(_ url: URL, handle: ResourceHandle? = nil) -> EventSubscription {
        let mailbox = EventMailbox(handle: handle)
        let text = url.absoluteString
        storage.withLock { storage in
            subscribers.withLock { $0[text, default: [:]][ObjectIdentifier(mailbox)] = mailbox }
            let now = ContinuousClock.now
            let keys = storage.keys(of: text).sorted {
                storage.states[$0]?.sequence ?? 0 < storage.states[$1]?.sequence ?? 0
            }
            for key in keys {
                guard let state = withEdits(storage.view(key, at: now), key: key, in: storage),
                    let stored = storage.states[key]
                else { continue }
                mailbox.deliver(.updated(state), key: key, varyNames: stored.varyNames)
            }
        }
        return EventSubscription(store: self, url: text, mailbox: mailbox)
    }

    func unsubscribe(_ mailbox: any StateConsumer, from url: String) {
        // One lookup of the key: every consumer of an update ends with this, under one lock.
        subscribers.withLock { subscribers in
            guard let index = subscribers.index(forKey: url) else { return }
            subscribers.values[index][ObjectIdentifier(mailbox)] = nil
            if subscribers.values[index].isEmpty { subscribers.remove(at: index) }
        }
    }

    /// Registers `consumer` for the states of each of `urls` (normalised) from now on.
    func register(_ consumer: any StateConsumer, for urls: some Sequence<String>) {
        storage.withLock { _ in
            subscribers.withLock { subscribers in
                for url in urls { subscribers[url, default: [:]][ObjectIdentifier(consumer)] = consumer }
            }
        }
    }

    /// The URLs someone observes now (what ``refreshStale()`` and idle eviction read).
    func observedURLs() -> [String] {
        subscribers.withLock { Array($0.keys) }
    }

    /// One of the consumers observing `url`, if any.
    func observer(of url: String) -> (any StateConsumer)? {
        subscribers.withLock { $0[url]?.values.first }
    }

    /// The number of registered consumers (to show that none leak).
    var subscriberCount: Int { subscribers.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// Delivers one response's events, after all of its states are stored (under the storage's
    /// lock: see ``changing(_:)``).
    private func deliver(_ changes: StateChanges) {
        guard !changes.isEmpty else { return }
        let targets = subscribers.withLock { subscribers in
            changes.ordered.compactMap { change in
                subscribers[change.key.url].map { (Array($0.values), change) }
            }
        }
        for (mailboxes, change) in targets {
            for mailbox in mailboxes { mailbox.deliver(change.event, key: change.key, varyNames: change.varyNames) }
        }
    }
}

extension ResourceStore: ResponseRecording {
    func scope(of request: ResourceRequest) -> [UInt8] {
        fingerprints.credentials(of: request)
    }

    func freshDocument(at url: URL, scope: StateScope) -> HALResource? {
        let text = URLNormalization.normalized(url).absoluteString
        return storage.withLock { storage in
            storage.freshResourceLoadingStored(text, scope: scope, at: .now)
        }
    }

    func freshDocuments(at urls: [URL?], scopes: [StateScope?]) -> [HALResource?] {
        var texts: [String?] = []
        texts.reserveCapacity(urls.count)
        for (url, scope) in zip(urls, scopes) {
            guard let url, scope != nil else {
                texts.append(nil)
                continue
            }
            texts.append(URLNormalization.normalized(url).absoluteString)
        }
        let now = ContinuousClock.now
        return storage.withLock { storage in
            zip(texts, scopes).map { text, scope in
                guard let text, let scope else { return nil }
                return storage.freshResourceLoadingStored(text, scope: scope, at: now)
            }
        }
    }

    func recordFetched(_ response: ResourceResponse, document: HALResource, at url: URL, scope: StateScope) {
        _ = storeFetched(document, response: response, url: URLNormalization.normalized(url), scope: scope)
    }

    func recordWrite(
        _ request: ResourceRequest, response: ResourceResponse, invalidation: ResponseInvalidation,
        parsing: HALParsingOptions
    ) {
        let write = StateStorage.WriteRequest(
            url: URLNormalization.normalized(request.url), scope: stateScope(of: request),
            sentIfMatch: request.headers["If-Match"] != nil,
            preferredRepresentation: request.headers["Prefer"]?.lowercased().contains("return=representation") == true)
        changing { storage, changes in
            storage.loadStored(write.url.absoluteString, scope: write.scope.credentials, now: .now)
            storage.applyWrite(
                invalidation, response: response, request: write, parsing: parsing, now: .now, changes: &changes)
            settleEdit(after: write, invalidation: invalidation, storage: &storage, changes: &changes)
        }
        // The rows no one read since launch: every scope's, on disk.
        if let durable {
            let failedMatch = response.status == 412 && write.sentIfMatch
            let urls =
                invalidation.succeeded
                ? invalidation.invalidated.map { URLNormalization.normalized($0).absoluteString }
                : failedMatch ? [write.url.absoluteString] : []
            let deleted = invalidation.succeeded && invalidation.method == .delete ? [write.url.absoluteString] : []
            durable.invalidate(urls.filter { !deleted.contains($0) }, deleting: deleted)
        }
    }
}
