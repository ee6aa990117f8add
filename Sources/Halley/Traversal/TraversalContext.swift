import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything one call shares across its tasks: the requester and resolved policy, the fetch
/// table, the concurrency limit, the clock, the requests in flight and the failures so far.
///
/// Every request of the call, traversal or action, goes through ``exchange(_:)``: cache,
/// concurrency limit, per-attempt timeout, retries, events and status validation.
final class TraversalContext: Sendable {
    let requester: any RequesterInterface
    let preference: TraversalOptions.Preference
    let variables: [String: TemplateValue]
    let itemKey: String
    let parsing: HALParsingOptions
    let collectsFailures: Bool
    let table: FetchTable
    let start: ContinuousClock.Instant

    private let headers: HTTPHeaders
    private let callHeaders: HTTPHeaders
    private let headerProvider: HeaderProvider?
    private let configurators: [RequestConfigurator]
    private let credentialHeaders: Set<String>
    private let trustedOrigins: Set<Origin>
    private let retryPolicy: RetryPolicy
    private let timeout: Duration?
    private let deadline: Duration?
    private let validators: [ResponseValidator]
    private let fallback: ResponseFallback?
    private let cache: ResponseCache?
    private let maxBodyBytes: Int
    let maxItemsPerPage: Int
    private let observers: [TraversalObserver]
    private let semaphore: AsyncSemaphore
    private let failures = LockedValue<[HalleyError]>([])
    private let inFlight = LockedValue<[String: Int]>([:])

    static let accept = "application/hal+json, application/json;q=0.9, */*;q=0.1"

    init(
        requester: any RequesterInterface, configuration: ResourceManager.Configuration, options: TraversalOptions,
        variables: [String: TemplateValue], rootURL: URL, collectsFailures: Bool
    ) {
        self.requester = requester
        preference = options.preference
        self.variables = variables
        headers = configuration.headers
        callHeaders = options.headers
        headerProvider = configuration.headerProvider
        configurators = [configuration.configureRequest, options.configureRequest].compactMap { $0 }
        credentialHeaders = Set(configuration.credentialHeaders.union(options.credentialHeaders).map { $0.lowercased() })
        trustedOrigins = configuration.allowedOrigins.union(options.allowedOrigins).union([Origin(rootURL)])
        retryPolicy = options.retryPolicy ?? configuration.retryPolicy
        timeout = options.requestTimeout ?? configuration.requestTimeout
        deadline = options.deadline
        validators = [configuration.validator, options.validator].compactMap { $0 }
        fallback = options.fallback ?? configuration.fallback
        cache = configuration.cache
        maxBodyBytes = options.maxBodyBytes
        maxItemsPerPage = options.maxItemsPerPage
        itemKey = options.collectionItemKey
        parsing = options.parsing
        observers = [configuration.observer, options.observer].compactMap { $0 }
        self.collectsFailures = collectsFailures
        table = FetchTable(maxRequests: options.maxRequests)
        semaphore = AsyncSemaphore(permits: options.maxConcurrency ?? configuration.maxConcurrency)
        start = .now
    }

    var collectedFailures: [HalleyError] { failures.get() }

    func record(_ failure: HalleyError) {
        failures.withLock { $0.append(failure) }
    }

    func emit(_ event: TraversalEvent) {
        for observer in observers { observer(event) }
    }

    // MARK: Deadline

    /// Runs `body` within the call's time budget. Past the deadline every request in flight
    /// is cancelled and the call fails with a timeout naming what was pending.
    func withinDeadline<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async throws -> Value {
        guard let deadline else { return try await body() }
        return try await withTimeLimit(deadline, body) {
            let pending = inFlight.get().keys.sorted()
            return HalleyError(
                code: .timeout,
                message: "the call's deadline of \(deadline) passed with \(pending.count) request(s) pending"
                    + (pending.isEmpty ? "" : ": " + pending.joined(separator: ", ")))
        }
    }

    // MARK: URLs

    /// The absolute URL a link points at: template expanded with the node's variables over
    /// the call's, resolved against the resource's base, query items appended.
    func url(
        of link: Link, in resource: HALResource, variables nodeVariables: [String: TemplateValue],
        queryItems: [URLQueryItem], includePath: String?
    ) throws(HalleyError) -> URL {
        let merged = nodeVariables.isEmpty ? variables : variables.merging(nodeVariables) { _, node in node }
        var url = try LinkTarget.url(of: link, base: resource.baseURL, variables: merged, includePath: includePath)
        if !queryItems.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.queryItems = (components.queryItems ?? []) + queryItems
            url = components.url ?? url
        }
        if let deprecation = link.deprecation {
            emit(.deprecatedLinkFollowed(includePath: includePath, url: url, deprecation: deprecation))
        }
        return url
    }

    // MARK: Documents

    /// The document at `url`, requested at most once per call.
    func document(at url: URL, includePath: String?) async throws -> HALResource {
        try checkScheme(url, includePath: includePath)
        let key = url.absoluteString
        if let document = try await table.join(key, url: url, includePath: includePath) {
            return document
        }
        let result: Result<HALResource, any Error>
        do {
            result = .success(try await loadDocument(url, includePath: includePath))
        } catch {
            result = .failure(error)
        }
        await table.finish(key, with: result)
        return try result.get()
    }

    private func loadDocument(_ url: URL, includePath: String?) async throws -> HALResource {
        let request = try await makeRequest(url, method: .get, body: .none, includePath: includePath)
        return try await withFallback(for: request) { (response) throws(HalleyError) in
            try self.validatedDocument(response, includePath: includePath)
        }
    }

    /// Parses a 2xx response and runs the validators on it.
    private func validatedDocument(_ response: ResourceResponse, includePath: String?) throws(HalleyError) -> HALResource {
        let document: HALResource
        do {
            document = try HALResource(parsing: response.body, url: response.url, options: parsing)
        } catch {
            throw HalleyError(code: .invalidDocument, includePath: includePath, url: response.url,
                              message: "invalid HAL document: \(error.description)", underlying: error)
        }
        try validate(response, document: document, includePath: includePath)
        return document
    }

    func validate(_ response: ResourceResponse, document: HALResource?, includePath: String?) throws(HalleyError) {
        for validator in validators {
            do {
                try validator(response, document)
            } catch {
                throw HalleyError(code: .validation, includePath: includePath, url: response.url,
                                  message: "response rejected by the validator: \(error)", underlying: error)
            }
        }
    }

    // MARK: Requests

    func checkScheme(_ url: URL, includePath: String?) throws(HalleyError) {
        guard let scheme = url.scheme?.lowercased(), requester.supportedSchemes.contains(scheme) else {
            throw HalleyError(code: .unsupportedScheme, includePath: includePath, url: url,
                              message: "links with the scheme \"\(url.scheme ?? "")\" are not followed by this requester")
        }
    }

    /// Builds a request: `Accept`, the manager's headers, the provider's, the call's (credential
    /// ones only for trusted origins), the body, then the configurators.
    func makeRequest(_ url: URL, method: HTTPMethod, body: RequestBody, includePath: String?) async throws -> ResourceRequest {
        var request = ResourceRequest(url: url, method: method, includePath: includePath, timeout: timeout)
        request.credentialHeaders = credentialHeaders
        request.trustedOrigins = trustedOrigins
        request.maxBodyBytes = maxBodyBytes
        request.headers["Accept"] = Self.accept
        var fields = headers
        if let headerProvider {
            do {
                fields.merge(try await headerProvider())
            } catch {
                if error is CancellationError { throw error }
                throw HalleyError(code: .transport, includePath: includePath, url: url,
                                  message: "the header provider failed: \(error)", underlying: error)
            }
        }
        fields.merge(callHeaders)
        let trusted = trustedOrigins.contains(Origin(url))
        for field in fields where trusted || !credentialHeaders.contains(field.name.lowercased()) {
            request.headers[field.name] = field.value
        }
        if let (data, contentType) = body.encoded {
            request.body = data
            request.headers["Content-Type"] = contentType
        }
        for configure in configurators { try await configure(&request) }
        return request
    }

    /// Sends `request` and turns the response into a value with `accept`; when either fails
    /// and a fallback supplies a response, that response goes through `accept` instead.
    func withFallback<Value>(
        for request: ResourceRequest, _ accept: (ResourceResponse) throws(HalleyError) -> Value
    ) async throws -> Value {
        do {
            return try accept(try await exchange(request))
        } catch let error as HalleyError {
            guard let fallback, let response = await fallback(request, error) else { throw error }
            emit(.fallbackUsed(url: request.url, error: error))
            guard response.isSuccess else {
                let httpError = HTTPError(response: response)
                throw HalleyError(code: .http, includePath: request.includePath, url: request.url,
                                  message: "fallback response: \(httpError.description)", underlying: httpError)
            }
            return try accept(response)
        }
    }

    /// One request with the whole policy: cache, concurrency limit, timeout, retries, events.
    ///
    /// - Returns: A 2xx response (a `304` for a cached response becomes that response).
    /// - Throws: ``HalleyError`` (`.http`, `.transport`, `.timeout`), `CancellationError`.
    func exchange(_ original: ResourceRequest) async throws -> ResourceResponse {
        var request = original
        let isGet = request.method == .get
        let cached = isGet ? cache?.lookup(request) : nil
        if let cached {
            if cached.isFresh(at: .now) {
                emit(.cacheHit(url: request.url))
                return cached.response
            }
            if let etag = cached.etag { request.headers["If-None-Match"] = etag }
            if let lastModified = cached.lastModified { request.headers["If-Modified-Since"] = lastModified }
        }
        let key = request.url.absoluteString
        inFlight.withLock { $0[key, default: 0] += 1 }
        defer {
            inFlight.withLock { pending in
                pending[key, default: 1] -= 1
                if pending[key] == 0 { pending[key] = nil }
            }
        }
        let retries = retryPolicy.retryableMethods.contains(request.method) ? retryPolicy.maxAttempts : 1
        var attempt = 1
        while true {
            let outcome = try await attemptOnce(request, attempt: attempt)
            switch outcome {
            case .response(let response):
                if response.status == 304, cached != nil, let refreshed = cache?.refresh(original, with: response) {
                    emit(.cacheRevalidated(url: request.url))
                    return refreshed
                }
                if response.isSuccess {
                    if isGet { cache?.store(response, for: original) }
                    if !isGet && !request.method.isSafe { invalidateCache(after: response, for: request.url) }
                    return response
                }
                let httpError = HTTPError(response: response)
                let error = HalleyError(code: .http, includePath: request.includePath, url: request.url,
                                        message: httpError.description, underlying: httpError)
                guard attempt < retries, retryPolicy.retryableStatuses.contains(response.status) else { throw error }
                let retryAfter = RetryPolicy.retryAfter(response.headers["Retry-After"])
                try await pause(before: attempt + 1, of: request, retryAfter: retryAfter, reason: "HTTP \(response.status)")
            case .failure(let error):
                guard attempt < retries, retryPolicy.retriesTransportErrors, error.code == .transport || error.code == .timeout
                else { throw error }
                try await pause(before: attempt + 1, of: request, retryAfter: nil, reason: error.message)
            }
            attempt += 1
        }
    }

    private enum Attempt {
        case response(ResourceResponse)
        case failure(HalleyError)
    }

    private func attemptOnce(_ request: ResourceRequest, attempt: Int) async throws -> Attempt {
        try await semaphore.acquire()
        let started = ContinuousClock.now
        let offset = started - start
        emit(.requestStarted(RequestRecord(method: request.method, url: request.url, includePath: request.includePath,
                                           start: offset, duration: nil, status: nil, bytes: nil, error: nil,
                                           attempt: attempt)))
        let response: ResourceResponse
        do {
            response = try await send(request)
        } catch {
            await semaphore.release()
            emit(.requestFinished(RequestRecord(method: request.method, url: request.url, includePath: request.includePath,
                                                start: offset, duration: .now - started, status: nil, bytes: nil,
                                                error: String(describing: error), attempt: attempt)))
            if let error = error as? HalleyError { return .failure(error) }
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            if let urlError = error as? URLError, urlError.code == .timedOut {
                return .failure(HalleyError(code: .timeout, includePath: request.includePath, url: request.url,
                                            message: "no response in time", underlying: error))
            }
            if let error = error as? ResponseBodyTooLargeError {
                return .failure(HalleyError(code: .limitExceeded, includePath: request.includePath, url: request.url,
                                            message: error.description, underlying: error))
            }
            return .failure(HalleyError(code: .transport, includePath: request.includePath, url: request.url,
                                        message: "request failed: \(error)", underlying: error))
        }
        await semaphore.release()
        emit(.requestFinished(RequestRecord(method: request.method, url: request.url, includePath: request.includePath,
                                            start: offset, duration: .now - started, status: response.status,
                                            bytes: response.body.count, error: nil, attempt: attempt)))
        // Requesters that cannot stream are held to the same limit after the fact.
        if response.body.count > maxBodyBytes {
            let error = ResponseBodyTooLargeError(url: request.url, limit: maxBodyBytes)
            return .failure(HalleyError(code: .limitExceeded, includePath: request.includePath, url: request.url,
                                        message: error.description, underlying: error))
        }
        return .response(response)
    }

    /// The requester's answer, bounded by the per-attempt timeout whatever the requester does.
    private func send(_ request: ResourceRequest) async throws -> ResourceResponse {
        guard let timeout else { return try await requester.response(for: request) }
        let requester = self.requester
        return try await withTimeLimit(timeout, { try await requester.response(for: request) }) {
            HalleyError(code: .timeout, includePath: request.includePath, url: request.url,
                        message: "no response within \(timeout)")
        }
    }

    private func pause(before attempt: Int, of request: ResourceRequest, retryAfter: Duration?, reason: String) async throws {
        let delay = retryPolicy.delay(after: attempt - 1, retryAfter: retryAfter)
        emit(.retrying(url: request.url, attempt: attempt, delay: delay, reason: reason))
        try await Task.sleep(for: delay)
    }

    private func invalidateCache(after response: ResourceResponse, for url: URL) {
        guard let cache else { return }
        cache.invalidate(url)
        for header in ["Location", "Content-Location"] {
            if let value = response.headers[header], let target = URL(string: value, relativeTo: url)?.absoluteURL {
                cache.invalidate(target)
            }
        }
    }
}

extension HTTPMethod {
    /// GET, HEAD and OPTIONS do not change the resource (RFC 9110, 9.2.1).
    var isSafe: Bool { self == .get || self == .head || self == .options }
}
