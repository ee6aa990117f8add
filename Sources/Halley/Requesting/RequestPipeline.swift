import Foundation
import HalleyHAL
import HalleyTransport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one path every request of a call takes, traversal or action: header layering,
/// credentials per origin, cache, concurrency limit, per-attempt timeout, retries,
/// credential refresh on `401`, status validation, validators, fallback and events. The
/// validators run here, on every 2xx response, before any caller sees it.
///
/// One pipeline serves one call (its concurrency limit, deadline and pending requests are
/// the call's); the cache and the credential refresher are shared through the manager's
/// configuration.
final class RequestPipeline: Sendable {
    let requester: any ResourceRequester & Sendable
    /// When the call started; request records are measured from here.
    let start: ContinuousClock.Instant

    private let policy: RequestPolicy
    private let headerProvider: HeaderProvider?
    /// Which headers carry credentials and which origins may receive them, for every request
    /// of the call (each carries it on to the requester's redirects and the cache).
    private let credentialScope: CredentialScope
    private let retryPolicy: RetryPolicy
    private let deadline: Duration?
    private let cache: ResponseCache?
    /// The resource store, when the manager keeps state: it serves fresh documents, keeps
    /// fetched ones and hears every write's answer.
    private let recorder: (any ResponseRecording)?
    /// The last request headers read for the store, and whose state they select: every request
    /// of a call usually carries the same, and a SHA-256 and a sort per resource would cost
    /// more than reading a fresh state. Kept for the call only, as the call's headers are.
    private let lastScope = LockedValue<
        (names: Set<String>, headers: HeaderFields, credentials: [String], scope: StateScope)?
    >(nil)
    /// ``staticScope(of:_:)``'s two answers, once known (the call's headers never change).
    private let staticScopes = LockedValue<(trusted: StateScope?, untrusted: StateScope?)>((nil, nil))
    private let refresher: CredentialRefresher?
    private let maxBodyBytes: Int
    /// How fetched documents are parsed.
    private let parsing: HALParsingOptions
    private let semaphore: AsyncSemaphore
    /// The call's limit on requests in flight.
    let maxConcurrency: Int
    /// Whether a request may wait without holding a slot of ``maxConcurrency``: for the pause
    /// before a retry, a credential refresh, or the header provider. Another request can use
    /// the slot meanwhile only if one is ready to take it.
    var waitsOutsideTheLimit: Bool { retryPolicy.maxAttempts > 1 || refresher != nil || headerProvider != nil }
    private let inFlight = LockedValue<[String: Int]>([:])
    /// Holds every attempt to `requestTimeout`; `nil` without one.
    private let watchdog: AttemptWatchdog?
    /// The requester's schemes, read once: a requester may build the set on every read.
    private let supportedSchemes: Set<String>
    private let supportsHTTP: Bool
    private let supportsHTTPS: Bool

    /// `Accept` for plain HAL.
    static let accept = "application/hal+json, application/json;q=0.9, */*;q=0.1"
    /// `Accept` when the call asks for HAL-FORMS (``RequestPolicy/acceptsForms``): HAL-FORMS
    /// first, plain HAL as good (a server without forms still answers), then the rest.
    static let formsAccept = "application/prs.hal-forms+json, " + accept

    /// The one `Accept` rule: every request of a call, traversal, action or form, gets it here
    /// (only a HAL-FORMS options list asks for its own media type).
    static func accept(forms: Bool) -> String { forms ? formsAccept : accept }

    /// What a pipeline is built from: the manager's and the call's settings, as the request
    /// layer knows them (the traversal layer translates its configuration and options into
    /// this, so this layer never names them).
    struct Settings: Sendable {
        /// The manager's policy (its headers are sent before the header provider's).
        let managerPolicy: RequestPolicy
        /// The call's policy, laid over the manager's.
        let callPolicy: RequestPolicy
        let headerProvider: HeaderProvider?
        let cache: ResponseCache?
        /// The resource store, when the manager keeps state.
        let recorder: (any ResponseRecording)?
        let credentialRefresher: CredentialRefresher?
        /// The whole call's time budget.
        let deadline: Duration?
        let maxBodyBytes: Int
        let parsing: HALParsingOptions
    }

    /// A pipeline for one call whose credentials belong to `trustRoot`'s origin (plus the
    /// allowed origins).
    ///
    /// - Parameter semaphore: The limit on requests in flight, when calls share one (the item
    ///   fetches of a collection page); the call's own otherwise.
    init(
        requester: any ResourceRequester & Sendable, settings: Settings, trustRoot: URL,
        semaphore: AsyncSemaphore? = nil
    ) {
        self.requester = requester
        // The manager's headers come before the provider's and the call's after, so the two
        // header layers are kept apart here; every other field merges by the policy's rules.
        var managerPolicy = settings.managerPolicy
        let managerHeaders = managerPolicy.headers
        managerPolicy.headers = [:]
        policy = managerPolicy.merged(with: settings.callPolicy)
        headers = managerHeaders
        headerProvider = settings.headerProvider
        credentialScope = CredentialScope(
            headerNames: policy.credentialHeaders, trustedOrigins: policy.allowedOrigins.union([Origin(trustRoot)]))
        retryPolicy = policy.retryPolicy ?? RequestPolicy.defaultRetryPolicy
        deadline = settings.deadline
        cache = settings.cache
        recorder = settings.recorder
        refresher = settings.credentialRefresher
        maxBodyBytes = settings.maxBodyBytes
        parsing = settings.parsing
        maxConcurrency = max(1, policy.maxConcurrency ?? RequestPolicy.defaultMaxConcurrency)
        self.semaphore = semaphore ?? AsyncSemaphore(permits: maxConcurrency)
        // A requester that ends its own attempts in time needs no watchdog racing each one.
        watchdog = requester.enforcesRequestTimeout ? nil : policy.requestTimeout.map { AttemptWatchdog(limit: $0) }
        supportedSchemes = requester.supportedSchemes
        supportsHTTP = supportedSchemes.contains("http")
        supportsHTTPS = supportedSchemes.contains("https")
        baseHeaders = Self.baseHeaders(accept: Self.accept(forms: policy.acceptsForms == true))
        start = .now
    }

    private let headers: HeaderFields
    /// The call's `Accept` field and the default `User-Agent`, made once: a request's headers
    /// start from them (a copy shares its storage), where setting the fields on each request
    /// allocated an array.
    private let baseHeaders: HeaderFields

    /// What every request's headers start from, before any of the caller's: `accept`, and
    /// `HalleyVersion.userAgent`, which a `User-Agent` of the caller's replaces in any layer
    /// (manager, header provider, call, the request's own, `configureRequest`).
    static func baseHeaders(accept: String) -> HeaderFields {
        HeaderFields(distinctFields: [
            HeaderFields.Field(name: "Accept", value: accept),
            HeaderFields.Field(name: "User-Agent", value: HalleyVersion.userAgent),
        ])
    }
    private var timeout: Duration? { policy.requestTimeout }

    func emit(_ event: HalleyEvent) {
        policy.observer?(event)
    }

    /// Whether anyone receives events: the request records are built only then.
    private var isObserved: Bool { policy.observer != nil }

    // MARK: Deadline

    /// Runs `body`, the whole call, within the call's time budget. Past the deadline every
    /// request in flight is cancelled and the call fails with a timeout naming what was
    /// pending. Every call runs its requests inside this: its end stops the call's watchdog.
    func withinDeadline<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async throws -> Value {
        // The requester's executor (a CurlRequester's loop thread) for the whole call.
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *),
            let executor = requester.preferredTaskExecutor
        {
            return try await withTaskExecutorPreference(executor) { try await self.timed(body) }
        }
        return try await timed(body)
    }

    private func timed<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async throws -> Value {
        defer { watchdog?.stop() }
        guard let deadline else { return try await body() }
        return try await withTimeLimit(deadline, body) {
            HalleyError(code: .timeout, message: Self.deadlineMessage(deadline, pending: inFlight.get().keys.sorted()))
        }
    }

    /// The most pending URLs a deadline's message names; the rest are counted.
    static let namedPendingURLs = 3

    /// `the whole call ran out of its 100 ms deadline with 256 requests pending: a, b, c and
    /// 253 more`: short however wide the fan-out.
    static func deadlineMessage(_ deadline: Duration, pending: [String]) -> String {
        let start = "the whole call ran out of its \(deadline.spoken) deadline"
        switch pending.count {
        case 0: return start
        case 1: return "\(start) with 1 request pending: \(pending[0])"
        default:
            let named = pending.prefix(namedPendingURLs).joined(separator: ", ")
            let rest = pending.count - namedPendingURLs
            return "\(start) with \(pending.count) requests pending: \(named)" + (rest > 0 ? " and \(rest) more" : "")
        }
    }

    // MARK: Performing

    /// Sends one request with the whole policy, runs the validators on the 2xx response, and
    /// turns it into a value with `accept`; when either fails and a fallback supplies a
    /// response, that response goes the same way. `acceptHeader` replaces the call's HAL
    /// `Accept` for a request that asks for something else (a HAL-FORMS options list asks for
    /// its link's `type`).
    func perform<Value>(
        _ url: URL, method: RequestMethod, body: RequestBody = .none, headers: HeaderFields = [:], includePath: String?,
        acceptHeader: String? = nil, accept: (ResourceResponse) throws(HalleyError) -> Value
    ) async throws -> Value {
        let draft = Draft(
            location: LazyURL(url), method: method, body: body, includePath: includePath, accept: acceptHeader,
            headers: headers)
        return try await perform(draft) { (response) throws(HalleyError) in
            try validate(response, document: nil, includePath: includePath)
            return try accept(response)
        }
    }

    /// The HAL document at `url`: fetched with the whole policy, parsed, and run through the
    /// validators with the parsed document. With a resource store, a fresh stored state is the
    /// answer (no request) and a fetched document is stored.
    ///
    /// perf: inlined, so the path without a store costs what it did before the store;
    /// BENCHMARKS.md, "Why the hot paths look as they do".
    @inline(__always)
    func document(at location: LazyURL, includePath: String?) async throws -> HALResource {
        let draft = Draft(location: location, method: .get, body: .none, includePath: includePath, accept: nil)
        guard let recorder else {
            return try await perform(draft) { (response) throws(HalleyError) in
                try parsedDocument(response, includePath: includePath)
            }
        }
        return try await storedDocument(draft, recorder: recorder)
    }

    /// ``document(at:includePath:)`` with a resource store. Kept out of line, so that the
    /// path without one stays as small as it was (and is inlined into the traversal's).
    @inline(never)
    private func storedDocument(_ draft: Draft, recorder: any ResponseRecording) async throws -> HALResource {
        let (url, includePath) = (draft.location.url, draft.includePath)
        return try await perform(
            draft,
            reusing: { request in
                guard let document = recorder.freshDocument(at: url, scope: self.stateScope(of: request, recorder))
                else { return nil }
                self.emit(.stateUsed(url: url))
                return document
            },
            recording: { response, request, document in
                recorder.recordFetched(
                    response, document: document, at: url, scope: self.stateScope(of: request, recorder))
            },
            read: { (response) throws(HalleyError) in try parsedDocument(response, includePath: includePath) })
    }

    /// Whether ``storedDocuments(at:)`` can answer: a store, and requests whose credentials
    /// follow from the call's headers alone (no header provider, no `configureRequest` hook
    /// that could change them per request).
    var readsStoreDirectly: Bool {
        recorder != nil && headerProvider == nil && policy.configureRequest == nil
    }

    /// The documents at `urls` that a `GET` with no request would answer from the store (see
    /// ``document(at:includePath:)``), read under one lock of the store, with no request built:
    /// a traversal over fresh state asks for a whole relation at once. `nil` for each URL that
    /// needs the full path (not stored, stale, a scheme the requester does not take, or no
    /// URL); all `nil` unless ``readsStoreDirectly``. Emits nothing: the caller emits
    /// `stateUsed` for the documents it uses.
    func storedDocuments(at urls: [URL?]) -> [HALResource?] {
        guard let recorder, readsStoreDirectly else { return Array(repeating: nil, count: urls.count) }
        var scopes: [StateScope?] = []
        scopes.reserveCapacity(urls.count)
        for url in urls {
            guard let url, (try? checkScheme(LazyURL(url), includePath: nil)) != nil else {
                scopes.append(nil)
                continue
            }
            scopes.append(staticScope(of: url, recorder))
        }
        return recorder.freshDocuments(at: urls, scopes: scopes)
    }

    /// The scope of a `GET` of `url` as ``build(_:)`` would make it with no provider or hook:
    /// the credentials go to a trusted origin or to none, so two scopes cover every URL.
    private func staticScope(of url: URL, _ recorder: any ResponseRecording) -> StateScope {
        let trusted = credentialScope.trusts(url)
        if let known = staticScopes.withLock({ trusted ? $0.trusted : $0.untrusted }) { return known }
        let request = headed(
            Draft(location: LazyURL(url), method: .get, body: .none, includePath: nil, accept: nil), fields: headers)
        let scope = stateScope(of: request, recorder)
        staticScopes.withLock { scopes in
            if trusted { scopes.trusted = scope } else { scopes.untrusted = scope }
        }
        return scope
    }

    /// Whose state `request` reads: the store's fingerprint of its credentials and its
    /// selecting headers (from ``lastScope`` when they are the last ones seen).
    private func stateScope(of request: ResourceRequest, _ recorder: any ResponseRecording) -> StateScope {
        let names = request.credentialScope.headerNames
        let last = lastScope.get()
        if let last, last.headers == request.headers, last.names == names { return last.scope }
        var credentials: [String] = []
        for field in request.headers where request.credentialScope.isCredential(field.name) {
            credentials.append(field.name.lowercased() + ":" + field.value)
        }
        // Other headers changed (a request ID, say), the credentials did not: no new fingerprint.
        let fingerprint =
            if let last, last.credentials == credentials, last.names == names {
                last.scope.credentials
            } else {
                recorder.scope(of: request)
            }
        let scope = StateScope(credentials: fingerprint, headers: SelectingHeaders(request))
        lastScope.set((names, request.headers, credentials, scope))
        return scope
    }

    /// A `GET` for the state layer: `validators` (a stored state's `ETag` and `Last-Modified`)
    /// make it conditional, and then a `304` is an answer, returned with no document.
    func revalidate(_ url: URL, validators: HeaderFields) async throws -> (
        response: ResourceResponse, document: HALResource?
    ) {
        let draft = Draft(
            location: LazyURL(url), method: .get, body: .none, includePath: nil, accept: nil, headers: validators,
            acceptsNotModified: !validators.isEmpty)
        return try await perform(draft) { (response) throws(HalleyError) in
            if response.status == 304 { return (response, nil) }
            return (response, try parsedDocument(response, includePath: nil))
        }
    }

    /// The request a `GET` of `url` would send now, headers and credentials included: whose
    /// state a handle reads (see ``ResponseRecording``).
    func probe(_ url: URL) async throws -> ResourceRequest {
        try await build(Draft(location: LazyURL(url), method: .get, body: .none, includePath: nil, accept: nil)).request
    }

    /// Parses a fetched document and runs the validators on it.
    @inline(__always)
    private func parsedDocument(_ response: ResourceResponse, includePath: String?) throws(HalleyError)
        -> HALResource
    {
        let document: HALResource
        do throws(HALDocumentError) {
            document = try HALResource(response: response, options: parsing)
        } catch {
            throw HalleyError(
                code: .invalidDocument, includePath: includePath, url: response.url,
                message: "invalid HAL document: \(error.location)", underlying: error)
        }
        try validate(response, document: document, includePath: includePath)
        return document
    }

    /// The one way a request is performed: `read` turns a 2xx response (the requester's or
    /// a fallback's) into a value, validators included, so no caller can skip them.
    /// `reusing` may answer from the built request with no exchange (a fresh stored state);
    /// `recording` hears of each value read from the requester's response (not a fallback's)
    /// with the request that was sent. Both are `nil` unless the manager keeps state, so
    /// other calls pay one check each.
    @inline(__always)
    private func perform<Value>(
        _ draft: Draft, reusing: ((ResourceRequest) -> Value?)? = nil,
        recording: ((ResourceResponse, ResourceRequest, Value) -> Void)? = nil,
        read: (ResourceResponse) throws(HalleyError) -> Value
    ) async throws -> Value {
        let includePath = draft.includePath
        try checkScheme(draft.location, includePath: includePath)
        let first = buildsSynchronously ? builtNow(draft) : try await build(draft)
        if let reusing, let reused = reusing(first.request) { return reused }
        do {
            let response = try await exchange(draft, first: first)
            let value = try read(response)
            if let recording { recording(response, first.request, value) }
            return value
        } catch let error as HalleyError {
            guard let fallback = policy.fallback, let response = await fallback(first.request, error) else {
                throw error
            }
            let url = draft.location.url
            emit(.fallbackUsed(url: url, error: error))
            guard response.isSuccess else {
                let httpError = HTTPError(response: response)
                throw HalleyError(
                    code: .http, includePath: includePath, url: url,
                    message: "fallback response: \(httpError.statusLine)", underlying: httpError)
            }
            return try read(response)
        }
    }

    /// Runs the validators (manager's, then call's) on a 2xx response.
    private func validate(_ response: ResourceResponse, document: HALResource?, includePath: String?)
        throws(HalleyError)
    {
        guard let validator = policy.validator else { return }
        do {
            try validator(response, document)
        } catch {
            throw HalleyError(
                code: .validation, includePath: includePath, url: response.url,
                message: "response rejected by the validator: \(error)", underlying: error)
        }
    }

    private func checkScheme(_ location: LazyURL, includePath: String?) throws(HalleyError) {
        // Nearly every URL is http(s), written in lower case: no need to extract its scheme.
        var text = location.text
        let isHTTP = text.withUTF8 { text in
            supportsHTTPS && URLResolution.hasPrefix(text, "https:")
                || supportsHTTP && URLResolution.hasPrefix(text, "http:")
        }
        if isHTTP { return }
        let url = location.url
        guard let scheme = url.scheme?.lowercased(), supportedSchemes.contains(scheme) else {
            throw HalleyError(
                code: .unsupportedScheme, includePath: includePath, url: url,
                message: Self.unsupportedSchemeMessage(url.scheme, supported: supportedSchemes))
        }
    }

    /// `the URL's scheme "htp" is not supported; this requester takes http and https`: the
    /// same words for a root, a link followed and an action's target.
    static func unsupportedSchemeMessage(_ scheme: String?, supported: Set<String>) -> String {
        let start = scheme.map { "the URL's scheme \"\($0)\" is not supported" } ?? "the URL has no scheme"
        let names = supported.sorted()
        let takes =
            switch names.count {
            case 0: "takes none"
            case 1: "takes \(names[0])"
            default: "takes " + names.dropLast().joined(separator: ", ") + " and \(names[names.count - 1])"
            }
        return "\(start); this requester \(takes)"
    }

    // MARK: Building requests

    /// What a request is before its headers are computed: each attempt computes them anew.
    private struct Draft {
        let location: LazyURL
        let method: RequestMethod
        let body: RequestBody
        let includePath: String?
        /// `Accept` when not the call's HAL one.
        let accept: String?
        /// Headers of this request alone (`If-Match`, `Prefer`, a handle's validators), after
        /// the call's.
        var headers = HeaderFields()
        /// Whether a `304` answers the request (it carries its own validators).
        var acceptsNotModified = false
    }

    /// A built request and the credential generation it was built with.
    private struct Built {
        let request: ResourceRequest
        let generation: Int
    }

    /// Builds a request: `Accept` and `User-Agent`, the manager's headers, the provider's (asked now, so every
    /// attempt carries fresh credentials), the call's (credential ones only for trusted
    /// origins), the body, then the configurators.
    private func build(_ draft: Draft) async throws -> Built {
        // Read before the provider runs: a refresh that lands meanwhile makes this request's
        // credentials count as old, which at worst retries it once more with new ones.
        let generation = refresher?.generation ?? 0
        var fields = headers
        if let headerProvider {
            do {
                fields.merge(try await headerProvider())
            } catch {
                if error is CancellationError { throw error }
                throw HalleyError(
                    code: .transport, includePath: draft.includePath, url: draft.location.url,
                    message: "the header provider failed: \(error)", underlying: error)
            }
        }
        var request = assembled(draft, fields: fields)
        if let configure = policy.configureRequest { try await configure(&request) }
        return Built(request: request, generation: generation)
    }

    /// Whether ``build(_:)`` has nothing to await (no header provider, no configurator), so
    /// ``builtNow(_:)`` does the same without an async frame.
    private var buildsSynchronously: Bool { headerProvider == nil && policy.configureRequest == nil }

    /// ``build(_:)`` for a pipeline that ``buildsSynchronously``.
    private func builtNow(_ draft: Draft) -> Built {
        Built(request: assembled(draft, fields: headers), generation: refresher?.generation ?? 0)
    }

    /// The request of `draft` with the manager's and the provider's `fields`, then the call's
    /// (credential ones only for trusted origins), and the body.
    private func assembled(_ draft: Draft, fields: HeaderFields) -> ResourceRequest {
        var request = headed(draft, fields: fields)
        if let (data, contentType) = draft.body.encoded {
            request.body = data
            request.headers["Content-Type"] = contentType
        }
        return request
    }

    /// `draft` as a request with `fields` (the manager's and the provider's headers), then the
    /// policy's and the draft's, each credential only where the scope lets it go: what
    /// ``build(_:)`` does before the body and the `configureRequest` hook.
    private func headed(_ draft: Draft, fields: HeaderFields) -> ResourceRequest {
        var fields = fields
        // Shared, not built: every request of the call starts with the same fields.
        var headers = draft.accept.map(Self.baseHeaders(accept:)) ?? baseHeaders
        fields.merge(policy.headers)
        if !draft.headers.isEmpty { fields.merge(draft.headers) }
        for field in fields where credentialScope.allows(field.name, to: draft.location) {
            headers[field.name] = field.value
        }
        return ResourceRequest(
            location: draft.location, method: draft.method, headers: headers, includePath: draft.includePath,
            timeout: timeout,
            credentialScope: credentialScope, maxBodyBytes: maxBodyBytes)
    }

    // MARK: Exchanging

    /// One request with the whole policy: cache, concurrency limit, timeout, retries,
    /// credential refresh, events. The decisions are ``ExchangeStateMachine``'s; this runs
    /// them: it performs each action, awaiting what must be awaited, and feeds the outcome back.
    ///
    /// - Returns: A 2xx response (a `304` for a cached response becomes that response).
    /// - Throws: ``HalleyError`` (`.http`, `.transport`, `.timeout`), `CancellationError`.
    @inline(__always)
    private func exchange(_ draft: Draft, first: Built) async throws -> ResourceResponse {
        var machine = ExchangeStateMachine(
            method: draft.method, retryPolicy: retryPolicy, refreshesCredentials: refresher != nil,
            acceptsNotModified: draft.acceptsNotModified, caches: cache != nil)
        let stored = machine.looksUpCache ? HeldEntry.lookUp(first.request, in: cache) : nil
        var action = machine.start(
            cached: stored.map { $0.isFresh ? .fresh : $0.canRevalidate ? .revalidatable : .stale } ?? .none)
        if case .useCached = action, let stored {
            emit(.cacheHit(url: draft.location.url))
            return stored.response
        }
        // Pending requests are named only when a deadline passes: without one, skip the count.
        let key = deadline == nil ? nil : draft.location.text
        if let key { inFlight.withLock { $0[key, default: 0] += 1 } }
        defer {
            if let key {
                inFlight.withLock { pending in
                    pending[key, default: 1] -= 1
                    if pending[key] == 0 { pending[key] = nil }
                }
            }
        }
        var built = first
        while true {
            switch action {
            case .send(let attempt, let rebuild, let conditional):
                if rebuild { built = try await build(draft) }
                let outcome: Attempt
                if !conditional, built.request.attempt == attempt {
                    // Nearly every request goes as built: no copy of it (a dozen references) to change.
                    outcome = try await attemptOnce(built.request, attempt: attempt)
                } else {
                    var request = built.request
                    request.attempt = attempt
                    if conditional, let stored {
                        if let etag = stored.etag { request.headers["If-None-Match"] = etag }
                        if let lastModified = stored.lastModified {
                            request.headers["If-Modified-Since"] = lastModified
                        }
                    }
                    outcome = try await attemptOnce(request, attempt: attempt)
                }
                switch outcome {
                case .response(let response):
                    if machine.invalidatesOnAnswer { invalidate(after: response, to: built.request) }
                    action = machine.received(
                        response, to: draft.location, includePath: draft.includePath, scope: credentialScope)
                    // The actions that end the exchange with this response are performed here,
                    // where it is in hand: kept for a turn of the loop, it would be copied.
                    switch action {
                    case .finish(let storing):
                        if storing { storeInCache(response, for: built.request) }
                        return response
                    case .useRevalidated:
                        // The 304 answers for the body this request was made with: `stored` holds
                        // it for the exchange, so an entry evicted meanwhile still has it.
                        guard let stored, let cache else {
                            // A 304 to a request that had nothing to revalidate: an error, not a crash.
                            throw HalleyError(
                                code: .http, url: draft.location.url,
                                message: "the server answered 304 Not Modified to a request that had no stored "
                                    + "response to revalidate; ask again without a cache")
                        }
                        emit(.cacheRevalidated(url: draft.location.url))
                        return stored.refresh(built.request, with: response, in: cache)
                    default:
                        break
                    }
                case .failure(let error):
                    action = machine.failed(error)
                }
            case .useCached, .useRevalidated, .finish:
                // The machine answers from the cache only before the first send; were it to do so
                // later, the exchange fails with a typed error instead of crashing.
                throw HalleyError(
                    code: .http, url: draft.location.url,
                    message: "the request's exchange got out of step (a cached answer after a send); nothing was used")
            case .refreshCredentials(let rejection):
                // Without a refresher the machine never asks; if it did, the 401 is the answer.
                guard let refresher else { throw rejection }
                try await refresh(with: refresher, after: built, error: rejection)
                action = machine.credentialsRefreshed()
            case .retry(let attempt, let delay, let reason):
                try await pause(before: attempt, delay: delay, of: draft.location.url, reason: reason)
                action = machine.retryTimerFired()
            case .fail(let error):
                throw error
            }
        }
    }

    /// Refreshes credentials after a `401`, sharing one refresh among every request that saw
    /// the same credentials rejected.
    @inline(never)
    private func refresh(with refresher: CredentialRefresher, after built: Built, error rejection: HalleyError)
        async throws
    {
        let url = built.request.url
        do {
            try await refresher.refresh(after: built.generation) {
                self.emit(.credentialsRefreshStarted(url: url))
            } finished: { failure in
                self.emit(.credentialsRefreshFinished(url: url, error: failure.map { String(describing: $0) }))
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw HalleyError(
                code: .http, includePath: built.request.includePath, url: url,
                message: "\(rejection.message); refreshing credentials failed: \(error)",
                underlying: rejection.underlying)
        }
    }

    private enum Attempt {
        case response(ResourceResponse)
        case failure(HalleyError)
    }

    /// Out of line for the same reason as ``HeldEntry``: the store's default instant would be
    /// a run-time-sized value in ``exchange(_:first:)``'s frame.
    @inline(never)
    private func storeInCache(_ response: ResourceResponse, for request: ResourceRequest) {
        cache?.store(response, for: request)
    }

    /// A cache entry as ``exchange(_:first:)`` holds it across its suspension points: boxed,
    /// and read only through these out-of-line members. An entry's layout includes a clock
    /// instant, whose size the standard library only tells at run time, and an async function
    /// allocates every such value it touches in its frame on entry, with a cache or without
    /// one; a reference has a fixed size.
    ///
    /// perf: no run-time-sized value in the exchange's frame;
    /// BENCHMARKS.md, "Why the hot paths look as they do".
    private final class HeldEntry: Sendable {
        private let entry: ResponseCache.Entry

        private init(_ entry: ResponseCache.Entry) { self.entry = entry }

        @inline(never)
        static func lookUp(_ request: ResourceRequest, in cache: ResponseCache?) -> HeldEntry? {
            cache?.lookup(request).map(HeldEntry.init)
        }

        @inline(never)
        var isFresh: Bool { entry.isFresh(at: .now) }

        @inline(never)
        var response: ResourceResponse { entry.response }

        @inline(never)
        var etag: String? { entry.etag }

        @inline(never)
        var lastModified: String? { entry.lastModified }

        @inline(never)
        var canRevalidate: Bool { entry.canRevalidate }

        @inline(never)
        func refresh(_ request: ResourceRequest, with response: ResourceResponse, in cache: ResponseCache)
            -> ResourceResponse
        {
            cache.refresh(request, with: response, held: entry)
        }
    }

    @inline(__always)
    private func attemptOnce(_ request: ResourceRequest, attempt: Int) async throws -> Attempt {
        if try !semaphore.tryAcquire() { try await semaphore.acquire() }
        // Offsets from the call's start (a `Duration`, of fixed size) rather than clock instants:
        // see ``HeldEntry`` for what a run-time-sized local costs an async function. Only events
        // and a watchdog's timeout message read them; without either, the clock is not read.
        let isTimed = isObserved || watchdog != nil
        let offset = isTimed ? elapsed() : .zero
        if isObserved {
            emit(
                .requestStarted(
                    RequestRecord(
                        method: request.method, url: request.url, includePath: request.includePath,
                        start: offset, duration: nil, status: nil, bytes: nil, error: nil,
                        attempt: attempt, requestHeaders: request.headers)))
        }
        let response: ResourceResponse
        do {
            // Without a watchdog, straight to the requester: one async frame fewer per request.
            if watchdog == nil {
                response = try await requester.response(for: request)
            } else {
                response = try await send(request)
            }
        } catch {
            // Measured before the permit goes to the next request, so durations never overlap
            // the next start under a limit of one.
            let duration = isTimed ? elapsed() - offset : .zero
            semaphore.release()
            return try failedAttempt(error, of: request, attempt: attempt, start: offset, duration: duration)
        }
        let duration = isTimed ? elapsed() - offset : .zero
        semaphore.release()
        if isObserved {
            emit(
                .requestFinished(
                    RequestRecord(
                        method: request.method, url: request.url, includePath: request.includePath,
                        start: offset, duration: duration, status: response.status,
                        bytes: response.body.count, error: nil, attempt: attempt, headers: response.headers,
                        metrics: response.metrics, requestHeaders: request.headers)))
        }
        // Requesters that cannot stream are held to the same limit after the fact.
        if response.body.count > maxBodyBytes {
            let error = ResponseBodyTooLargeError(url: request.url, limit: maxBodyBytes)
            return .failure(
                HalleyError(
                    code: .limitExceeded, includePath: request.includePath, url: request.url,
                    message: "the response body is larger than \(error.limit) bytes", underlying: error))
        }
        return .response(response)
    }

    /// The time since the call started.
    @inline(never)
    private func elapsed() -> Duration { ContinuousClock.now - start }

    /// What an attempt whose requester threw `error` comes to, its `requestFinished` sent.
    /// Out of line: the casts need run-time-sized values (`CancellationError`).
    @inline(never)
    private func failedAttempt(
        _ error: any Error, of request: ResourceRequest, attempt: Int, start offset: Duration, duration: Duration
    ) throws -> Attempt {
        emit(
            .requestFinished(
                RequestRecord(
                    method: request.method, url: request.url, includePath: request.includePath,
                    start: offset, duration: duration, status: nil, bytes: nil,
                    error: String(describing: error), attempt: attempt, requestHeaders: request.headers)))
        if let error = error as? HalleyError { return .failure(error) }
        if error is CancellationError || Task.isCancelled { throw CancellationError() }
        if let error = error as? ResponseBodyTooLargeError {
            return .failure(
                HalleyError(
                    code: .limitExceeded, includePath: request.includePath, url: request.url,
                    message: "the response body is larger than \(error.limit) bytes", underlying: error))
        }
        if let error = error as? ResponseHeadersTooLargeError {
            return .failure(
                HalleyError(
                    code: .limitExceeded, includePath: request.includePath, url: request.url,
                    message: error.summary, underlying: error))
        }
        return .failure(transportFailure(error, of: request, after: duration))
    }

    /// What a requester threw, as the call's error: a transport failure in the shared
    /// vocabulary (``TransportError``), a timeout as ``HalleyError/Code/timeout``.
    private func transportFailure(_ error: any Error, of request: ResourceRequest, after elapsed: Duration)
        -> HalleyError
    {
        guard let transport = TransportError(classifying: error, url: request.url) else {
            // A requester's own error type: kept as it is, under the host's name.
            let host = request.url.host ?? request.url.absoluteString
            return HalleyError(
                code: .transport, includePath: request.includePath, url: request.url,
                message: "the request to \(host) failed: \(error)", underlying: error)
        }
        guard transport.code == .timedOut else {
            return HalleyError(
                code: .transport, includePath: request.includePath, url: request.url, message: transport.description,
                underlying: transport)
        }
        // A requester that enforces the limit times out because of it; any other one that
        // times out at the limit (URLSession's timer, set to the same value) ran into it too,
        // and one that times out well before it had a rule of its own.
        let message =
            if let timeout, watchdog == nil || elapsed >= timeout * 0.9 {
                Self.attemptTimeoutMessage(timeout, url: request.url)
            } else if let timeout {
                "\(TransportError(code: .timedOut, url: request.url, limit: elapsed).summary), a limit of the "
                    + "requester's own, before the \(timeout.spoken) allowed for each attempt"
            } else {
                TransportError(code: .timedOut, url: request.url).summary
            }
        return HalleyError(
            code: .timeout, includePath: request.includePath, url: request.url, message: message,
            underlying: TransportError(
                code: .timedOut, url: request.url, detail: transport.detail, underlying: transport.underlying ?? error,
                limit: watchdog == nil ? timeout : transport.limit))
    }

    /// The requester's answer, bounded by the per-attempt timeout whatever the requester does.
    @inline(never)
    private func send(_ request: ResourceRequest) async throws -> ResourceResponse {
        guard let watchdog, let timeout else { return try await requester.response(for: request) }
        let requester = self.requester
        let body: @Sendable () async throws -> ResourceResponse = { try await requester.response(for: request) }
        return try await watchdog.run(body) {
            HalleyError(
                code: .timeout, includePath: request.includePath, url: request.url,
                message: Self.attemptTimeoutMessage(timeout, url: request.url),
                underlying: TransportError(code: .timedOut, url: request.url, limit: timeout))
        }
    }

    /// How an attempt that ran out of ``RequestPolicy/requestTimeout`` is reported, whoever
    /// stopped it: in the words of someone who never saw the property.
    static func attemptTimeoutMessage(_ timeout: Duration, url: URL) -> String {
        "\(TransportError(code: .timedOut, url: url, limit: timeout).summary), the time allowed for each attempt"
    }

    /// Out of line, as ``send(_:)`` and ``refresh(with:after:error:)`` are: its clock's values
    /// are sized at run time, and inlined into ``exchange(_:first:)`` they would be allocated
    /// in every exchange's frame, retried or not.
    @inline(never)
    private func pause(before attempt: Int, delay: Duration, of url: URL, reason: String) async throws {
        emit(.retrying(url: url, attempt: attempt, delay: delay, reason: reason))
        try await Task.sleep(for: delay)
    }

    /// Applies the one invalidation rule (``ResponseInvalidation``) to the cache and the store
    /// after an answer to an unsafe request, and tells observers which of its header values
    /// were not used (a `204` has no document whose problems could say so).
    private func invalidate(after response: ResourceResponse, to request: ResourceRequest) {
        guard cache != nil || recorder != nil || isObserved else { return }
        let invalidation = ResponseInvalidation(
            method: request.method, target: request.url, response: response, trusts: credentialScope.trusts)
        for ignored in invalidation.ignored where invalidation.succeeded {
            emit(
                .responseHeaderIgnored(
                    url: request.url, field: ignored.field, value: ignored.value, reason: ignored.reason))
        }
        if let cache {
            for url in invalidation.invalidated { cache.invalidate(url) }
        }
        recorder?.recordWrite(request, response: response, invalidation: invalidation, parsing: parsing)
    }
}

extension RequestMethod {
    /// GET, HEAD and OPTIONS do not change the resource (RFC 9110, 9.2.1).
    var isSafe: Bool { self == .get || self == .head || self == .options }
}
