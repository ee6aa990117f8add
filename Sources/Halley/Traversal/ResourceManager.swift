import Foundation

/// Fetches HAL resources with their relationships: the library's entry point.
///
/// ```swift
/// let manager = ResourceManager(requester: URLSessionRequester())
/// let contact = try await manager.resource(
///     from: URL(string: "https://api.example.com/contacts/1")!,
///     includes: ["[contacts].website", "website"])
/// contact["contacts"]?[0]?["website"]?["url"]
/// ```
///
/// A manager holds no per-call state; calls run independently and concurrently.
public struct ResourceManager: Sendable {
    /// Settings shared by every call of a manager.
    public struct Configuration: Sendable {
        /// The most requests one call keeps in flight (8 by default).
        public var maxConcurrency: Int = 8
        /// Header fields sent with every request (credential-bearing ones only to trusted
        /// origins).
        public var headers: HTTPHeaders = [:]
        /// Global template variables; per-call and per-include variables win over them.
        public var variables: [String: TemplateValue] = [:]
        /// A provider of variables (values and closures) consulted at the start of each call,
        /// below ``variables``. Use ``TemplateVariableProvider/shared`` for one global set.
        public var templateVariables: TemplateVariableProvider?
        /// Header names that carry credentials: sent only to the root URL's origin and
        /// ``allowedOrigins``.
        public var credentialHeaders: Set<String> = ["Authorization", "Cookie", "Proxy-Authorization"]
        /// Origins, beyond each call's root, that may receive credential-bearing headers.
        public var allowedOrigins: Set<Origin> = []
        /// Receives every call's events.
        public var observer: TraversalObserver?
        /// Headers computed per request (token refresh), after ``headers``.
        public var headerProvider: HeaderProvider?
        /// Runs on every request after the header rules; the call's configurator runs after it.
        public var configureRequest: RequestConfigurator?
        /// How failed requests are retried; no retries by default.
        public var retryPolicy: RetryPolicy = .none
        /// How long one request attempt may take, all of it (60 s): a server that accepts and
        /// never answers, or trickles a body forever, cannot hold a call open.
        public var requestTimeout: Duration? = .seconds(60)
        /// Rejects 2xx responses that are not acceptable; runs before the call's validator.
        public var validator: ResponseValidator?
        /// Supplies a response when a request fails.
        public var fallback: ResponseFallback?
        /// An HTTP cache shared by every call of this manager; off (`nil`) by default.
        public var cache: ResponseCache?

        /// Default settings.
        public init() {}
    }

    /// Sends the requests.
    public let requester: any RequesterInterface
    /// Settings shared by every call.
    public var configuration: Configuration

    /// Creates a manager.
    ///
    /// - Parameters:
    ///   - requester: Sends the requests; ``URLSessionRequester`` for HTTP.
    ///   - configuration: Headers, variables, concurrency and observer for every call.
    public init(requester: any RequesterInterface = DefaultRequester.make(), configuration: Configuration = Configuration()) {
        self.requester = requester
        self.configuration = configuration
    }

    // MARK: Single resources

    /// Fetches a resource and every included relationship, merged into one document.
    ///
    /// Any failed relationship fails the call (and cancels the rest); use
    /// ``traverse(_:plan:options:)`` to keep what succeeded.
    ///
    /// - Parameters:
    ///   - url: The root resource.
    ///   - includes: Include paths such as `"[contacts].website"`.
    ///   - options: Embedded/links preference, variables, headers, limits, observer.
    /// - Returns: The root's JSON with each relationship under its rel name.
    /// - Throws: ``HalleyError`` naming the include path and URL; `CancellationError`.
    public func resource(from url: URL, includes: [Include] = [], options: TraversalOptions = TraversalOptions())
        async throws -> JSONValue
    {
        try await resource(from: url, plan: plan(includes), options: options)
    }

    /// Fetches a resource whose URL is a template (or plain URL text), expanded with the
    /// call's variables over the manager's.
    ///
    /// - Throws: ``HalleyError`` (``HalleyError/Code/invalidTemplate`` or
    ///   ``HalleyError/Code/invalidURL`` for a bad root), and as ``resource(from:includes:options:)-(URL,_,_)``.
    public func resource(from template: String, includes: [Include] = [], options: TraversalOptions = TraversalOptions())
        async throws -> JSONValue
    {
        let variables = callVariables(options)
        return try await run(rootURL(template, variables: variables), plan: plan(includes), options: options,
                             variables: variables)
    }

    /// Fetches a resource with an already compiled plan (what typed include lists produce).
    public func resource(from url: URL, plan: IncludePlan, options: TraversalOptions = TraversalOptions()) async throws
        -> JSONValue
    {
        try await run(url, plan: plan, options: options, variables: callVariables(options))
    }

    /// The strict traversal with the call's variables already evaluated.
    func run(_ url: URL, plan: IncludePlan, options: TraversalOptions, variables: [String: TemplateValue]) async throws
        -> JSONValue
    {
        try checkDepth(plan, options: options)
        let context = makeContext(root: url, options: options, variables: variables, collectsFailures: false)
        return try await context.withinDeadline {
            let root = try await context.document(at: url, includePath: nil)
            return .object(try await Traverser(context: context).merged(root, nodes: plan.children))
        }
    }

    /// Fetches one HAL document, with no includes: for inspecting links and state.
    ///
    /// - Throws: ``HalleyError`` (HTTP, transport, invalid document, unsupported scheme).
    public func document(at url: URL, options: TraversalOptions = TraversalOptions()) async throws -> HALResource {
        let context = makeContext(root: url, options: options, variables: callVariables(options), collectsFailures: false)
        return try await context.withinDeadline { try await context.document(at: url, includePath: nil) }
    }

    /// Fetches a resource and its relationships, keeping whatever succeeded.
    ///
    /// A failed relationship is left out of the document and listed in
    /// ``TraversalResult/failures``; the other branches carry on. A failed root still throws.
    public func traverse(_ url: URL, plan: IncludePlan, options: TraversalOptions = TraversalOptions()) async throws
        -> TraversalResult
    {
        try checkDepth(plan, options: options)
        let context = makeContext(root: url, options: options, variables: callVariables(options), collectsFailures: true)
        return try await context.withinDeadline {
            let root = try await context.document(at: url, includePath: nil)
            let document = try await Traverser(context: context).merged(root, nodes: plan.children)
            return TraversalResult(document: .object(document), failures: context.collectedFailures,
                                   requestCount: await context.table.requestCount)
        }
    }

    /// Fetches one HAL document whose URL is a template, expanded with the call's variables.
    public func document(at template: String, options: TraversalOptions = TraversalOptions()) async throws -> HALResource {
        try await document(at: rootURL(template, variables: callVariables(options)), options: options)
    }

    /// ``traverse(_:includes:options:)-(URL,_,_)`` from a URL template, expanded with the
    /// call's variables.
    public func traverse(_ template: String, includes: [Include] = [], options: TraversalOptions = TraversalOptions())
        async throws -> TraversalResult
    {
        try await traverse(rootURL(template, variables: callVariables(options)), includes: includes, options: options)
    }

    /// ``traverse(_:plan:options:)`` with include paths.
    public func traverse(_ url: URL, includes: [Include] = [], options: TraversalOptions = TraversalOptions())
        async throws -> TraversalResult
    {
        try await traverse(url, plan: plan(includes), options: options)
    }

    // MARK: Collections

    /// Fetches a collection resource and returns its items, each with the includes merged.
    ///
    /// Items come from `_embedded.item`, else `_links.item` (each fetched), else the only
    /// relation in `_embedded` (Spring Data REST names it after the entity); the key is
    /// ``TraversalOptions/collectionItemKey``. An empty collection gives `[]`.
    public func resourceCollection(
        from url: URL, includes: [Include] = [], options: TraversalOptions = TraversalOptions()
    ) async throws -> [JSONValue] {
        try await resourceCollectionWithMetadata(from: url, includes: includes, options: options).items
    }

    /// Like ``resourceCollection(from:includes:options:)`` and also returns the collection's
    /// own attributes (paging metadata) and links (`next`, `prev`, ...).
    public func resourceCollectionWithMetadata(
        from url: URL, includes: [Include] = [], options: TraversalOptions = TraversalOptions()
    ) async throws -> ResourceCollection {
        try await resourceCollectionWithMetadata(from: url, plan: plan(includes), options: options)
    }

    /// The collection call with an already compiled plan.
    public func resourceCollectionWithMetadata(
        from url: URL, plan: IncludePlan, options: TraversalOptions = TraversalOptions()
    ) async throws -> ResourceCollection {
        try await collection(url, plan: plan, options: options, variables: callVariables(options))
    }

    /// The collection call with the call's variables already evaluated.
    func collection(_ url: URL, plan: IncludePlan, options: TraversalOptions, variables: [String: TemplateValue])
        async throws -> ResourceCollection
    {
        try checkDepth(plan, options: options)
        let context = makeContext(root: url, options: options, variables: variables, collectsFailures: false)
        return try await context.withinDeadline {
            let collection = try await context.document(at: url, includePath: nil)
            let items = try await Traverser(context: context).items(of: collection, nodes: plan.children, includePath: nil)
            return ResourceCollection(items: items.map { .object($0) }, metadata: collection.state,
                                      links: collection.links, url: collection.baseURL ?? url)
        }
    }

    // MARK: Helpers

    func makeContext(root: URL, options: TraversalOptions, variables: [String: TemplateValue], collectsFailures: Bool)
        -> TraversalContext
    {
        TraversalContext(requester: requester, configuration: configuration, options: options, variables: variables,
                         rootURL: root, collectsFailures: collectsFailures)
    }

    /// The call's variables: the provider's (evaluated now, once per call), the manager's,
    /// then the call's.
    func callVariables(_ options: TraversalOptions) -> [String: TemplateValue] {
        configuration.globalVariables().merging(options.variables) { _, call in call }
    }

    func plan(_ includes: [Include]) throws(HalleyError) -> IncludePlan {
        do {
            return try IncludePlan(includes)
        } catch {
            throw HalleyError(code: .invalidInclude, includePath: error.path, message: error.description,
                              underlying: error)
        }
    }

    private func checkDepth(_ plan: IncludePlan, options: TraversalOptions) throws(HalleyError) {
        guard plan.depth <= options.maxIncludeDepth else {
            throw HalleyError(code: .limitExceeded,
                              message: "include paths are \(plan.depth) levels deep; the limit is \(options.maxIncludeDepth)")
        }
    }

    /// Expands a root URL template with the call's variables.
    func rootURL(_ template: String, variables: [String: TemplateValue]) throws(HalleyError) -> URL {
        let expanded: String
        do {
            expanded = try URITemplate(template).expand(variables)
        } catch {
            throw HalleyError(code: .invalidTemplate, message: "cannot expand root template \"\(template)\": \(error.message)",
                              underlying: error)
        }
        guard let url = URL(string: expanded), url.scheme != nil else {
            throw HalleyError(code: .invalidURL, message: "\"\(expanded)\" is not an absolute URL")
        }
        return url
    }
}

extension ResourceManager.Configuration {
    /// The provider's variables overlaid with the fixed ``variables``.
    func globalVariables() -> [String: TemplateValue] {
        guard let provider = templateVariables else { return variables }
        return provider.values().merging(variables) { _, fixed in fixed }
    }
}
