import Foundation

/// Everything one call shares across its tasks: the requester, the resolved options, the
/// fetch table, the concurrency limit, the clock and the failures collected so far.
final class TraversalContext: Sendable {
    let requester: any RequesterInterface
    let preference: TraversalOptions.Preference
    let variables: [String: TemplateValue]
    let headers: HTTPHeaders
    let credentialHeaders: Set<String>
    let trustedOrigins: Set<Origin>
    let itemKey: String
    let parsing: HALParsingOptions
    let timeout: Duration?
    let observers: [TraversalObserver]
    let collectsFailures: Bool
    let table: FetchTable
    let semaphore: AsyncSemaphore
    let start: ContinuousClock.Instant
    private let failures = LockedValue<[HalleyError]>([])

    static let accept = "application/hal+json, application/json;q=0.9, */*;q=0.1"

    init(
        requester: any RequesterInterface, configuration: ResourceManager.Configuration, options: TraversalOptions,
        variables: [String: TemplateValue], rootURL: URL, collectsFailures: Bool
    ) {
        self.requester = requester
        preference = options.preference
        self.variables = variables
        var headers = configuration.headers
        headers.merge(options.headers)
        self.headers = headers
        credentialHeaders = Set((configuration.credentialHeaders.union(options.credentialHeaders)).map { $0.lowercased() })
        trustedOrigins = configuration.allowedOrigins.union(options.allowedOrigins).union([Origin(rootURL)])
        itemKey = options.collectionItemKey
        parsing = options.parsing
        timeout = options.requestTimeout
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

    // MARK: URLs

    /// The absolute URL a link points at: template expanded with the node's variables over
    /// the call's, resolved against the resource's base, query items appended.
    func url(
        of link: Link, in resource: HALResource, variables nodeVariables: [String: TemplateValue],
        queryItems: [URLQueryItem], includePath: String?
    ) throws(HalleyError) -> URL {
        var href = link.href
        if link.templated {
            let merged = nodeVariables.isEmpty ? variables : variables.merging(nodeVariables) { _, node in node }
            do {
                href = try URITemplate(link.href).expand(merged)
            } catch {
                throw HalleyError(code: .invalidTemplate, includePath: includePath, url: resource.baseURL,
                                  message: "cannot expand link template \"\(link.href)\": \(error.message)",
                                  underlying: error)
            }
        }
        guard var url = resource.resolve(href), url.scheme != nil else {
            throw HalleyError(code: .invalidURL, includePath: includePath, url: resource.baseURL,
                              message: "href \"\(href)\" is not a valid URL")
        }
        if !queryItems.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.queryItems = (components.queryItems ?? []) + queryItems
            url = components.url ?? url
        }
        if let deprecation = link.deprecation {
            emit(.deprecatedLinkFollowed(includePath: includePath, url: url, deprecation: deprecation))
        }
        return url
    }

    // MARK: Fetching

    /// The document at `url`, requested at most once per call.
    func document(at url: URL, includePath: String?) async throws -> HALResource {
        guard let scheme = url.scheme?.lowercased(), requester.supportedSchemes.contains(scheme) else {
            throw HalleyError(code: .unsupportedScheme, includePath: includePath, url: url,
                              message: "links with the scheme \"\(url.scheme ?? "")\" are not followed by this requester")
        }
        let key = url.absoluteString
        if let document = try await table.join(key, url: url, includePath: includePath) {
            return document
        }
        let result: Result<HALResource, any Error>
        do {
            result = .success(try await load(url, includePath: includePath))
        } catch {
            result = .failure(error)
        }
        await table.finish(key, with: result)
        return try result.get()
    }

    private func load(_ url: URL, includePath: String?) async throws -> HALResource {
        var request = ResourceRequest(url: url, includePath: includePath, timeout: timeout)
        request.headers["Accept"] = Self.accept
        let trusted = trustedOrigins.contains(Origin(url))
        for field in headers where trusted || !credentialHeaders.contains(field.name.lowercased()) {
            request.headers[field.name] = field.value
        }

        try await semaphore.acquire()
        let started = ContinuousClock.now
        let offset = started - start
        emit(.requestStarted(RequestRecord(method: request.method, url: url, includePath: includePath, start: offset,
                                           duration: nil, status: nil, bytes: nil, error: nil)))
        let response: ResourceResponse
        do {
            response = try await requester.response(for: request)
        } catch {
            await semaphore.release()
            emit(.requestFinished(RequestRecord(method: request.method, url: url, includePath: includePath, start: offset,
                                                duration: .now - started, status: nil, bytes: nil,
                                                error: String(describing: error))))
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            throw HalleyError(code: .transport, includePath: includePath, url: url,
                              message: "request failed: \(error)", underlying: error)
        }
        await semaphore.release()
        emit(.requestFinished(RequestRecord(method: request.method, url: url, includePath: includePath, start: offset,
                                            duration: .now - started, status: response.status,
                                            bytes: response.body.count, error: nil)))
        guard response.isSuccess else {
            let error = HTTPError(response: response)
            throw HalleyError(code: .http, includePath: includePath, url: url, message: error.description,
                              underlying: error)
        }
        do {
            return try HALResource(parsing: response.body, url: response.url, options: parsing)
        } catch {
            throw HalleyError(code: .invalidDocument, includePath: includePath, url: response.url,
                              message: "invalid HAL document: \(error.description)", underlying: error)
        }
    }
}
