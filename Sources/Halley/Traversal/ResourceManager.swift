import Foundation
import HalleyHAL
import HalleyTransport

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
    ///
    /// The fields a call can also set live in ``policy`` (see ``RequestPolicy`` for how a
    /// call's options are laid over them); each has a property of the same name here (see
    /// ``RequestPolicyLayer``), so `configuration.headers` is `configuration.policy.headers`.
    @dynamicMemberLookup
    public struct Configuration: RequestPolicyLayer, Sendable {
        /// Headers, variables, credentials, hooks, retries, timeouts, validation, fallback and
        /// concurrency for every call: 8 requests in flight, `Authorization`, `Cookie` and
        /// `Proxy-Authorization` as credentials, a 60 s attempt timeout and no retries.
        public var policy: RequestPolicy = .managerDefaults
        /// A provider of variables (values and closures) consulted at the start of each call,
        /// below ``RequestPolicy/variables``: ``TemplateVariableProvider/shared`` by default, so values set
        /// on it (or on the original Halley's `DefaultTemplateHandler.shared`) reach every
        /// manager, as in Halley. `nil` for a manager that ignores them.
        public var templateVariables: TemplateVariableProvider? = .shared
        /// Headers computed for every attempt of every request (tokens), after ``RequestPolicy/headers``:
        /// a retry asks again, so it never re-sends a token that was refreshed meanwhile.
        public var headerProvider: HeaderProvider?
        /// Refreshes credentials when a trusted origin answers `401`: it runs once however
        /// many requests were rejected at the same time, then each is retried once with fresh
        /// headers from ``headerProvider``; a second `401` is the error. `nil` by default.
        ///
        /// ```swift
        /// configuration.headerProvider = { ["Authorization": "Bearer \(await tokens.current())"] }
        /// configuration.refreshCredentials = { try await tokens.refresh() }
        /// ```
        ///
        /// Copies of a configuration share one refresh in flight. A call whose deadline passes
        /// (or that is cancelled) while a refresh runs stops waiting for it at once; the
        /// refresh goes on for the others.
        public var refreshCredentials: (@Sendable () async throws -> Void)? {
            get { credentialRefresher?.action }
            set { credentialRefresher = newValue.map(CredentialRefresher.init) }
        }
        /// The single-flight state behind ``refreshCredentials``.
        var credentialRefresher: CredentialRefresher?
        /// An HTTP cache shared by every call of this manager; off (`nil`) by default.
        public var cache: ResponseCache?
        /// The live state of resources (``ResourceStore``): handles from
        /// ``ResourceManager/resource(at:options:)``, fresh states reused by traversals, writes
        /// and the server's signals applied, events per resource. Off (`nil`) by default.
        ///
        /// ```swift
        /// configuration.store = ResourceStore(defaultFreshness: .seconds(30))
        /// ```
        public var store: ResourceStore?
        /// The decoder typed calls use when they are not given one (date and key strategies
        /// set once for the whole API).
        public var decoder: JSONDecoder = JSONDecoder()

        /// How failed requests are retried; no retries by default.
        public var retryPolicy: RetryPolicy {
            get { policy.retryPolicy ?? RequestPolicy.defaultRetryPolicy }
            set { policy.retryPolicy = newValue }
        }
        /// The most requests one call keeps in flight (8 by default).
        public var maxConcurrency: Int {
            get { policy.maxConcurrency ?? RequestPolicy.defaultMaxConcurrency }
            set { policy.maxConcurrency = newValue }
        }

        /// A field of ``policy`` by key path: `configuration[dynamicMember: \.headers]`. Every
        /// field has its own property; this keeps code that names one by key path
        /// compiling.
        public subscript<Value>(dynamicMember keyPath: WritableKeyPath<RequestPolicy, Value>) -> Value {
            get { policy[keyPath: keyPath] }
            set { policy[keyPath: keyPath] = newValue }
        }

        /// Default settings.
        public init() {}
    }

    /// The requester, as the original Halley's protocol: the one given to the manager when it
    /// is a ``RequesterInterface``, else a view of ``resourceRequester`` that forwards to it.
    ///
    /// Kept with its type so that code passing it on as `any RequesterInterface` compiles as
    /// before; new code reads ``resourceRequester``.
    public let requester: any RequesterInterface & Sendable
    /// The requester that sends every request: the one given to the manager (a non-`Sendable`
    /// one in the wrapper that serialises it).
    public let resourceRequester: any ResourceRequester & Sendable
    /// Settings shared by every call.
    public var configuration: Configuration

    /// Creates a manager.
    ///
    /// ```swift
    /// let manager = ResourceManager(requester: URLSessionRequester())
    /// ```
    ///
    /// - Parameters:
    ///   - requester: Sends the requests; ``URLSessionRequester`` for HTTP, or your own
    ///     ``ResourceRequester``.
    ///   - configuration: Headers, variables, concurrency and observer for every call.
    public init<Requester: ResourceRequester & Sendable>(
        requester: Requester, configuration: Configuration = Configuration()
    ) {
        self.requester = RequesterInterfaceView(requester)
        self.resourceRequester = requester
        self.configuration = configuration
    }

    /// Creates a manager around a requester of the original Halley's protocol, or one written
    /// for 0.2.0, which ``requester`` then returns as it is.
    ///
    /// - Parameters:
    ///   - requester: Sends the requests.
    ///   - configuration: Headers, variables, concurrency and observer for every call.
    public init<Requester: RequesterInterface & Sendable>(
        requester: Requester, configuration: Configuration = Configuration()
    ) {
        self.requester = requester
        self.resourceRequester = requester
        self.configuration = configuration
    }

    /// Creates a manager with the platform's default requester (``DefaultRequester``:
    /// ``CurlRequester`` on Linux when libcurl loads, ``URLSessionRequester`` otherwise).
    ///
    /// ```swift
    /// let manager = ResourceManager()
    /// ```
    public init(configuration: Configuration = Configuration()) {
        self.init(requester: DefaultRequester.make(), configuration: configuration)
    }

    /// Creates a manager around a requester that is not `Sendable`, such as the original
    /// Halley's completion-handler class:
    ///
    /// ```swift
    /// let resourceManager = ResourceManager(requester: AlamofireRequester())
    /// ```
    ///
    /// The manager takes the requester over (`sending`) and never lets two threads into it at
    /// once. A completion-handler requester is entered only for
    /// ``RequesterInterface/requestResource(at:completion:)``, which returns at once, so its
    /// requests still run concurrently; one that implements ``ResourceRequester/response(for:)``
    /// instead gets the whole request and answers in full, one request at a time. To have an
    /// `async` requester's requests overlap, pass it with `Sendable` in its type
    /// (`any RequesterInterface & Sendable`, not `any RequesterInterface`); actors and Halley's
    /// own requesters are recognised either way.
    public init<Requester: RequesterInterface>(
        requester: sending Requester, configuration: Configuration = Configuration()
    ) {
        let shared = sharedRequester(requester)
        self.requester = shared
        self.resourceRequester = shared
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
    public func resource(from url: URL, includes: [Include] = [], options: CallOptions = CallOptions())
        async throws -> JSONValue
    {
        try await resource(from: url, plan: plan(includes), options: options)
    }

    /// Fetches a resource whose URL is a template (or plain URL text), expanded with the
    /// call's variables over the manager's.
    ///
    /// - Throws: ``HalleyError`` (``HalleyError/Code/invalidTemplate`` or
    ///   ``HalleyError/Code/invalidURL`` for a bad root), and as ``resource(from:includes:options:)-(URL,_,_)``.
    public func resource(from template: String, includes: [Include] = [], options: CallOptions = CallOptions())
        async throws -> JSONValue
    {
        try await Call(self, at: .template(template), options: options).merged(plan(includes)).document
    }

    /// Fetches a resource with an already compiled plan (what typed include lists produce).
    public func resource(from url: URL, plan: IncludePlan, options: CallOptions = CallOptions()) async throws
        -> JSONValue
    {
        try await Call(self, at: .url(url), options: options).merged(plan).document
    }

    /// Fetches one HAL document, with no includes: for inspecting links and state.
    ///
    /// - Throws: ``HalleyError`` (HTTP, transport, invalid document, unsupported scheme).
    public func document(at url: URL, options: CallOptions = CallOptions()) async throws -> HALResource {
        try await Call(self, at: .url(url), options: options).run { _, resource in resource }
    }

    /// Fetches a resource and its relationships, keeping whatever succeeded.
    ///
    /// A failed relationship is left out of the document and listed in
    /// ``TraversalResult/failures``; the other branches carry on. A failed root still throws.
    public func traverse(_ url: URL, plan: IncludePlan, options: CallOptions = CallOptions()) async throws
        -> TraversalResult
    {
        try await traverse(.url(url), plan: plan, options: options)
    }

    /// The one partial traversal, from any start.
    private func traverse(_ start: CallStart, plan: IncludePlan, options: CallOptions) async throws
        -> TraversalResult
    {
        try await Call(self, at: start, options: options).run(plan: plan, collectsFailures: true) { context, root in
            let document = try await Traverser(context: context).merged(root, nodes: plan.children)
            return TraversalResult(
                document: .object(document), failures: context.collectedFailures,
                requestCount: context.table.requestCount)
        }
    }

    /// Fetches one HAL document whose URL is a template, expanded with the call's variables.
    public func document(at template: String, options: CallOptions = CallOptions()) async throws -> HALResource {
        try await Call(self, at: .template(template), options: options).run { _, resource in resource }
    }

    /// ``traverse(_:includes:options:)-(URL,_,_)`` from a URL template, expanded with the
    /// call's variables.
    public func traverse(_ template: String, includes: [Include] = [], options: CallOptions = CallOptions())
        async throws -> TraversalResult
    {
        try await traverse(.template(template), plan: plan(includes), options: options)
    }

    /// ``traverse(_:plan:options:)`` with include paths.
    public func traverse(_ url: URL, includes: [Include] = [], options: CallOptions = CallOptions())
        async throws -> TraversalResult
    {
        try await traverse(url, plan: plan(includes), options: options)
    }

    // MARK: Helpers

    func plan(_ includes: [Include]) throws(HalleyError) -> IncludePlan {
        do {
            return try IncludePlan(includes)
        } catch {
            throw HalleyError(error)
        }
    }
}
