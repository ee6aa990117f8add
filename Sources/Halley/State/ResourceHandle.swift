import Foundation
import HalleyHAL
import HalleyTransport

/// The handle of one resource's state in the manager's ``ResourceStore``: read it, refresh it,
/// follow its links, write to it, and hear when it changes.
///
/// ```swift
/// var configuration = ResourceManager.Configuration()
/// configuration.store = ResourceStore()
/// let manager = ResourceManager(configuration: configuration)
/// let order = manager.resource(at: URL(string: "https://api.example.com/orders/7")!)
/// let state = try await order.get()
/// let customer = try await order.follow("customer")
/// _ = try await order.patch(.json(["status": "paid"]), options: WriteOptions(ifMatch: true))
/// ```
///
/// Handles are values: two handles of the same URL, manager store, credentials and trust
/// compare equal and share one state. Without a store configured, a handle fetches on
/// every ``get()`` and hears only its own fetches.
public struct ResourceHandle: Sendable, Hashable {
    /// The resource's URL, normalised (RFC 3986, section 6).
    public let url: URL
    let manager: ResourceManager
    let options: CallOptions
    /// Whose origin receives the call's credentials: the URL's own, or for a followed handle
    /// the origin of the handle it was followed from (as in follow chains).
    let trustRoot: URL
    let store: ResourceStore

    init(manager: ResourceManager, url: URL, options: CallOptions, trustRoot: URL, store: ResourceStore) {
        self.manager = manager
        self.url = URLNormalization.normalized(url)
        self.options = options
        self.trustRoot = trustRoot
        self.store = store
    }

    private func call() throws(HalleyError) -> Call {
        try Call(manager, at: .url(url), options: options, trusting: trustRoot)
    }

    /// Whose state this handle reads: the credentials and headers a request would carry now.
    func stateScope() async throws -> StateScope {
        store.stateScope(of: try await call().pipeline.probe(url))
    }

    // MARK: Reading

    /// The state: the stored one while fresh (no request), else fetched (conditionally when
    /// the stored state has validators). Concurrent calls with the same headers share one
    /// request; a cancelled caller ends at once with `CancellationError`, and the request is
    /// cancelled when no caller waits for it. The same as `get(policy: .storedIfFresh)`.
    ///
    /// ```swift
    /// let state = try await manager.resource(at: URL(string: "https://api.example.com/orders/7")!).get()
    /// print(state.resource.state["total"] ?? "none")
    /// ```
    ///
    /// - Throws: ``HalleyError`` as ``ResourceManager/document(at:options:)-(URL,_)``.
    public func get() async throws -> ResourceState {
        try await get(policy: .storedIfFresh)
    }

    /// The state, weighing the stored one against the network as `policy` says (see
    /// ``CachePolicy``).
    ///
    /// ```swift
    /// let order = manager.resource(at: URL(string: "https://api.example.com/orders/7")!)
    /// let state = try await order.get(policy: .storedThenRefresh)
    /// print(state.isStale ? "refreshing" : "current")
    /// ```
    ///
    /// - Throws: ``HalleyError/Code/notStored`` naming the URL under ``CachePolicy/storedOnly``
    ///   when nothing is stored; else as ``get()``.
    public func get(policy: CachePolicy) async throws -> ResourceState {
        let call = try call()
        let (store, url) = (self.store, self.url)
        return try await call.withinDeadline {
            let scope = store.stateScope(of: try await call.pipeline.probe(url))
            let fetch: @Sendable () async throws -> ResourceState = {
                try await Self.fetch(url, scope: scope, call: call, store: store, policy: policy)
            }
            switch policy.kind {
            case .storedOnly:
                guard let state = store.read(url, scope: scope) else {
                    throw HalleyError(
                        code: .notStored, url: url,
                        message:
                            "nothing is stored for this URL, and the cache policy storedOnly never sends a request")
                }
                call.pipeline.emit(.stateUsed(url: url))
                return state
            case .network:
                return try await store.shared(url, scope: scope, fetch)
            case .storedIfFresh, .storedThenRefresh:
                if let state = store.fresh(url, scope: scope) {
                    call.pipeline.emit(.stateUsed(url: url))
                    return state
                }
                let stale =
                    policy == .storedThenRefresh
                    ? store.read(url, scope: scope) : store.revalidatable(url, scope: scope)
                guard let stale else { return try await store.shared(url, scope: scope, fetch) }
                // At once, and the new state reaches observers when it arrives (RFC 5861, 3).
                Task { _ = try? await store.shared(url, scope: scope, fetch) }
                call.pipeline.emit(.stateUsed(url: url))
                return stale
            }
        }
    }

    /// The state decoded as `type` with the manager's decoder (``HalleyCodable`` models too).
    ///
    /// An embedded copy may be partial (the HAL draft): when the state is only an embedded copy
    /// and does not decode as `type`, the resource's own URL is fetched once and that is decoded.
    ///
    /// ```swift
    /// struct Order: Decodable { let total: Double }
    /// let order = try await manager.resource(at: URL(string: "https://api.example.com/orders/7")!).get(Order.self)
    /// ```
    ///
    /// - Throws: ``HalleyError`` (``HalleyError/Code/decoding`` naming the JSON path), and as
    ///   ``get()``.
    public func get<Value: Decodable>(_ type: Value.Type) async throws -> Value {
        let state = try await get()
        do {
            return try decode(type, from: state)
        } catch  where state.isEmbedded {
            return try decode(type, from: try await refresh())
        }
    }

    /// `state` decoded as `type`, as ``get(_:)`` decodes it.
    func decode<Value: Decodable>(_ type: Value.Type, from state: ResourceState) throws -> Value {
        try manager.decode(type, from: .object(state.resource.json), decoder: nil, plan: IncludePlan(), url: state.url)
    }

    /// Asks the server whatever is stored: conditionally (`If-None-Match`,
    /// `If-Modified-Since`) when the stored state has validators, in which case a `304`
    /// keeps the stored state and makes it fresh again.
    ///
    /// ```swift
    /// let latest = try await manager.resource(at: URL(string: "https://api.example.com/orders/7")!).refresh()
    /// ```
    ///
    /// - Throws: ``HalleyError`` as ``get()``.
    public func refresh() async throws -> ResourceState {
        let call = try call()
        let (store, url) = (self.store, self.url)
        return try await call.withinDeadline {
            let scope = store.stateScope(of: try await call.pipeline.probe(url))
            return try await Self.fetch(url, scope: scope, call: call, store: store, policy: .network)
        }
    }

    /// The request this handle would make now, not sent: whose credentials and headers it carries.
    func probe() async throws -> ResourceRequest {
        try await call().pipeline.probe(url)
    }

    /// ``refresh()`` shared with the concurrent gets and refreshes of the same state: what
    /// ``ResourceStore/refreshStale()`` and models asking again use, so that one URL is asked once.
    func refreshShared() async throws -> ResourceState {
        let call = try call()
        let (store, url) = (self.store, self.url)
        return try await call.withinDeadline {
            let scope = store.stateScope(of: try await call.pipeline.probe(url))
            return try await store.shared(url, scope: scope) {
                try await Self.fetch(url, scope: scope, call: call, store: store, policy: .network)
            }
        }
    }

    /// What the store holds for this handle, fresh or stale, with no request; `nil` when
    /// nothing is stored.
    ///
    /// ```swift
    /// if let state = await manager.resource(at: URL(string: "https://api.example.com/orders/7")!).current {
    ///     print(state.isStale)
    /// }
    /// ```
    public var current: ResourceState? {
        get async {
            guard let scope = try? await stateScope() else { return nil }
            return store.read(url, scope: scope)
        }
    }

    /// One request for the state, with what its failure leaves: a `404` or `410` removes the
    /// state; a failure to get any answer (no network, a `5xx`, a timeout) serves the last
    /// known state where `policy` or the response's `stale-if-error` allow (RFC 5861, 4).
    private static func fetch(
        _ url: URL, scope: StateScope, call: Call, store: ResourceStore, policy: CachePolicy
    ) async throws -> ResourceState {
        do {
            return try await fetch(url, scope: scope, call: call, store: store)
        } catch let error as HalleyError {
            let status = error.httpError?.status
            if status == 404 || status == 410 {
                store.removeGone(url, scope: scope)
                throw error
            }
            let isOutage = error.code == .transport || error.code == .timeout || (status ?? 0) >= 500
            guard isOutage,
                var state = store.lastKnown(url, scope: scope, anyAge: policy == .storedThenRefresh)
            else { throw error }
            state.isStale = true
            state.refreshFailure = RefreshFailure(error: error)
            return state
        }
    }

    /// One request for the state: conditional with the stored validators (not an embedded
    /// copy's, which has none of its own).
    private static func fetch(_ url: URL, scope: StateScope, call: Call, store: ResourceStore) async throws
        -> ResourceState
    {
        let found = store.stored(url, scope: scope)
        let held = found?.stored
        var validators: HeaderFields = [:]
        if let held, !held.state.isEmbedded {
            if let etag = held.state.etag { validators["If-None-Match"] = etag }
            if let lastModified = held.state.lastModified { validators["If-Modified-Since"] = lastModified }
        }
        let (response, document) = try await call.pipeline.revalidate(url, validators: validators)
        if let document { return store.storeFetched(document, response: response, url: url, scope: scope) }
        guard let found else {
            // Only a request with validators accepts a 304, and those come from `held`.
            throw HalleyError(
                code: .http, url: url,
                message:
                    "the server answered 304 Not Modified to a request without validators, and nothing is stored to reuse"
            )
        }
        return store.confirm(found.stored, key: found.key, notModified: response)
    }

    // MARK: Links

    /// The handle of the resource `relation` leads to, found by the relation resolver
    /// (embedded resources first, as in traversals; an embedded one with a `self` link was
    /// stored when this state was). Credentials stay with this handle's origin.
    ///
    /// ```swift
    /// let customer = try await manager.resource(at: URL(string: "https://api.example.com/orders/7")!)
    ///     .follow("customer")
    /// ```
    ///
    /// - Throws: ``HalleyError/Code/missingRelation`` (also for an embedded resource without
    ///   a `self` link, which has no state of its own), and as ``get()``.
    public func follow(_ relation: String) async throws -> ResourceHandle {
        let call = try call()
        let state = try await get()
        let target = try CallTarget.following(
            LinkRelation(relation), named: nil, in: state.resource, includePath: nil, for: .hop(1),
            resolver: call.resolver)
        // An embedded resource's own URL is its base: its `self` link resolved against its parent.
        let destination =
            if let embedded = target.embedded, embedded.links.selfLink?.isTemplated == false,
                let url = embedded.baseURL
            {
                url
            } else {
                try target.destination(call.resolver)
            }
        return ResourceHandle(
            manager: manager, url: destination, options: options, trustRoot: trustRoot, store: store)
    }

    // MARK: Writing

    /// Sends `PUT` with `body` through the manager's policy; the store applies the answer
    /// (see ``ResourceStore``).
    ///
    /// ```swift
    /// let order = manager.resource(at: URL(string: "https://api.example.com/orders/7")!)
    /// _ = try await order.put(.json(["status": "paid"]), options: WriteOptions(preferRepresentation: true))
    /// ```
    ///
    /// - Throws: ``HalleyError`` as ``ResourceManager/send(_:to:body:options:)-(_,URL,_,_)``, and
    ///   ``HalleyError/Code/missingValidator`` when `If-Match` is asked for and no `ETag` is stored.
    public func put(_ body: RequestBody, options: WriteOptions = WriteOptions()) async throws -> ActionResponse {
        try await write(.put, body: body, options: options)
    }

    /// Sends `PATCH` with `body` (see ``put(_:options:)``).
    ///
    /// ```swift
    /// _ = try await manager.resource(at: URL(string: "https://api.example.com/orders/7")!)
    ///     .patch(.json(["status": "paid"]))
    /// ```
    public func patch(_ body: RequestBody, options: WriteOptions = WriteOptions()) async throws -> ActionResponse {
        try await write(.patch, body: body, options: options)
    }

    /// Sends `POST` with `body` (see ``put(_:options:)``): a `201` whose `Content-Location`
    /// equals its `Location` stores the created resource.
    ///
    /// ```swift
    /// let created = try await manager.resource(at: URL(string: "https://api.example.com/orders")!)
    ///     .post(.json(["item": "book"]))
    /// print(created.location?.absoluteString ?? "no Location")
    /// ```
    public func post(_ body: RequestBody, options: WriteOptions = WriteOptions()) async throws -> ActionResponse {
        try await write(.post, body: body, options: options)
    }

    /// Sends `DELETE`: on success every scope's state of this URL is removed and its observers
    /// hear ``ResourceEvent/deleted``.
    ///
    /// ```swift
    /// _ = try await manager.resource(at: URL(string: "https://api.example.com/orders/7")!).delete()
    /// ```
    public func delete(options: WriteOptions = WriteOptions()) async throws -> ActionResponse {
        try await write(.delete, body: .none, options: options)
    }

    /// The one write path: the action's (``Call/act(_:to:body:headers:)``), with the write's
    /// own headers.
    func write(_ method: RequestMethod, body: RequestBody, options write: WriteOptions) async throws
        -> ActionResponse
    {
        let call = try call()
        let (store, url) = (self.store, self.url)
        return try await call.withinDeadline {
            var headers: HeaderFields = [:]
            if write.preferRepresentation { headers["Prefer"] = "return=representation" }
            if write.ifMatch {
                let scope = store.stateScope(of: try await call.pipeline.probe(url))
                guard let etag = store.stored(url, scope: scope)?.stored.state.etag else {
                    throw HalleyError(
                        code: .missingValidator, url: url,
                        message: "\(method.rawValue) with If-Match needs the resource's ETag, and none is stored; "
                            + "refresh() it first, which fetches its own URL (an embedded copy has no ETag), "
                            + "and its response must carry one")
                }
                headers["If-Match"] = etag
            }
            return ActionResponse(
                response: try await call.act(method, to: url, body: body, headers: headers), method: method)
        }
    }

    // MARK: Events

    /// The state's changes as they happen (see ``ResourceEvents``).
    ///
    /// ```swift
    /// for await event in manager.resource(at: URL(string: "https://api.example.com/orders/7")!).events {
    ///     if case .stale = event { break }
    /// }
    /// ```
    public var events: ResourceEvents { ResourceEvents(handle: self) }

    // MARK: Identity

    /// Handles are equal when they read the same state the same way: same store, URL,
    /// trusted origin and call headers.
    public static func == (lhs: ResourceHandle, rhs: ResourceHandle) -> Bool {
        lhs.store === rhs.store && lhs.url == rhs.url && Origin(lhs.trustRoot) == Origin(rhs.trustRoot)
            && lhs.options.policy.headers == rhs.options.policy.headers
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(store))
        hasher.combine(url)
        hasher.combine(Origin(trustRoot))
        hasher.combine(options.policy.headers)
    }
}
