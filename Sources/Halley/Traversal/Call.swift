import Foundation
import HalleyHAL
import HalleyTransport

/// Where a call starts.
enum CallStart: Sendable {
    /// A URL, as it is.
    case url(URL)
    /// A URL template (or plain URL text), expanded with the call's variables.
    case template(String)
    /// An entry (expanded as a template), then hops: where a follow chain ends.
    case chain(entry: String, hops: [CallHop])
    /// A resource already in hand, which an action or a form acts on: its origin receives
    /// the call's credentials.
    case resource(HALResource)
    /// A link of a resource read earlier (a page's `next`), resolved against `base` by the
    /// call's relation resolver; `base`'s origin receives the credentials unless the call
    /// says whose does.
    case link(Link, base: URL)
}

/// One call, set up once: every public entry point (resources, traversals, typed requests,
/// collections, pages, follow chains, actions, forms, paging) only translates its arguments
/// into one of these and runs it.
///
/// It holds what a call decides once and every request of the call shares: the variables
/// (the provider's closures run here, once per call), where the call starts (a root
/// template is expanded here and nowhere else), whose origin receives credentials, and the
/// request pipeline (the policy merged, the concurrency limit, the deadline).
struct Call: Sendable {
    let manager: ResourceManager
    let options: CallOptions
    /// The provider's variables (evaluated when the call was set up), the manager's, then
    /// the call's.
    let variables: [String: TemplateValue]
    /// What the call starts from: a URL (root template expanded) or a resource in hand.
    let start: CallTarget
    /// The URL the call starts at (root template expanded); a resource in hand's own URL.
    let rootURL: URL
    /// The hops a follow chain takes from ``start``; none for other calls.
    let hops: [CallHop]
    /// The URL whose origin (with ``RequestPolicy/allowedOrigins``) receives the call's
    /// credential headers.
    let trustRoot: URL
    let pipeline: RequestPipeline

    /// Sets up a call.
    ///
    /// - Parameters:
    ///   - variables: The variables of the call this one continues (a page's linked items,
    ///     a chain's action), already evaluated; evaluated from `options` otherwise.
    ///   - trustRoot: Whose origin receives credentials when not the start's own: an
    ///     enumeration's later pages and items stay with the origin of its first page.
    ///   - semaphore: A limit on requests in flight shared with sibling calls (the item
    ///     calls of one page); the call's own otherwise.
    /// - Throws: ``HalleyError`` for a root template that does not expand to an absolute URL.
    init(
        _ manager: ResourceManager, at start: CallStart, options: CallOptions,
        variables: [String: TemplateValue]? = nil, trusting trustRoot: URL? = nil, semaphore: AsyncSemaphore? = nil
    ) throws(HalleyError) {
        let variables = variables ?? Self.variables(of: manager, options: options)
        var root: URL?
        let ownTrustRoot: URL
        var resource: HALResource?
        var link: (link: Link, base: URL)?
        switch start {
        case .url(let url):
            root = url
            ownTrustRoot = url
            hops = []
        case .template(let template):
            let url = try Self.expand(template, variables: variables)
            (root, ownTrustRoot) = (url, url)
            hops = []
        case .chain(let entry, let chainHops):
            let url = try Self.expand(entry, variables: variables)
            (root, ownTrustRoot) = (url, url)
            hops = chainHops
        case .resource(let inHand):
            resource = inHand
            ownTrustRoot = Self.trustRoot(of: inHand)
            hops = []
        case .link(let followed, let base):
            link = (followed, base)
            ownTrustRoot = base
            hops = []
        }
        let trustRoot = trustRoot ?? ownTrustRoot
        let pipeline = RequestPipeline(
            requester: manager.resourceRequester, settings: Self.pipelineSettings(manager.configuration, options),
            trustRoot: trustRoot, semaphore: semaphore)
        if let link {
            root = try Self.resolver(options: options, variables: variables, pipeline: pipeline)
                .url(of: link.link, relativeTo: link.base, includePath: nil)
        }
        self.manager = manager
        self.options = options
        self.variables = variables
        self.trustRoot = trustRoot
        self.pipeline = pipeline
        rootURL = root ?? ownTrustRoot
        self.start = CallTarget(
            url: resource == nil ? rootURL : nil, embedded: resource, trustRoot: ownTrustRoot, includePath: nil)
    }

    /// The manager's configuration and the call's options, as the request pipeline takes them.
    private static func pipelineSettings(
        _ configuration: ResourceManager.Configuration, _ options: CallOptions
    ) -> RequestPipeline.Settings {
        RequestPipeline.Settings(
            managerPolicy: configuration.policy, callPolicy: options.policy,
            headerProvider: configuration.headerProvider,
            cache: configuration.cache, recorder: configuration.store,
            credentialRefresher: configuration.credentialRefresher, deadline: options.deadline,
            maxBodyBytes: options.maxBodyBytes, parsing: options.parsing)
    }

    /// Whose origin receives credentials for requests a resource's links lead to: the
    /// resource's own. A resource without a URL trusts nothing: a file URL matches no web
    /// origin.
    static func trustRoot(of resource: HALResource) -> URL {
        resource.baseURL ?? URL(fileURLWithPath: "/")
    }

    /// The call's variables: the provider's (evaluated now), the manager's, then the call's.
    private static func variables(of manager: ResourceManager, options: CallOptions) -> [String: TemplateValue] {
        var providerLayer = RequestPolicy()
        providerLayer.variables = manager.configuration.templateVariables?.values() ?? [:]
        return providerLayer.merged(with: manager.configuration.policy).merged(with: options.policy).variables
    }

    /// Expands a root URL template with the call's variables.
    private static func expand(_ template: String, variables: [String: TemplateValue]) throws(HalleyError) -> URL {
        let expanded: String
        do {
            expanded = try URITemplate(template).expand(variables)
        } catch {
            throw HalleyError(
                code: .invalidTemplate, message: "cannot expand root template \"\(template)\": \(error.message)",
                underlying: error)
        }
        guard let url = URL(string: expanded), url.scheme != nil else {
            throw HalleyError(code: .invalidURL, message: "\"\(expanded)\" is not an absolute URL")
        }
        return url
    }

    /// Finds relations with the call's preference, variables and events.
    var resolver: RelationResolver { resolver(preferring: options.preference) }

    /// Finds relations with `preference` (actions act on links first), the call's variables
    /// and events.
    func resolver(preferring preference: CallOptions.Preference) -> RelationResolver {
        Self.resolver(options: options, variables: variables, pipeline: pipeline, preferring: preference)
    }

    private static func resolver(
        options: CallOptions, variables: [String: TemplateValue], pipeline: RequestPipeline,
        preferring preference: CallOptions.Preference? = nil
    ) -> RelationResolver {
        RelationResolver(
            embeddedFirst: (preference ?? options.preference) == .embedded, variables: variables, emit: pipeline.emit,
            itemKey: LinkRelation(options.collectionItemKey))
    }

    // MARK: Running

    /// Runs `body`, the whole call, within the call's deadline (see
    /// ``RequestPipeline/withinDeadline(_:)``).
    func withinDeadline<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await pipeline.withinDeadline(body)
    }

    /// Follows the call's hops in one traversal context within the call's deadline and hands
    /// the last target (the start, without hops) to `body`.
    ///
    /// - Parameters:
    ///   - collectsFailures: Partial mode: failed relationships are recorded, not thrown.
    ///   - shared: Documents shared with sibling calls (the item calls of one page).
    func follow<Value: Sendable>(
        collectsFailures: Bool = false, sharing shared: FetchTable? = nil,
        _ body: @escaping @Sendable (TraversalContext, CallTarget) async throws -> Value
    ) async throws -> Value {
        let context = TraversalContext(call: self, collectsFailures: collectsFailures, sharing: shared)
        let (start, hops) = (self.start, self.hops)
        return try await withinDeadline {
            var target = start
            var path: [String] = []
            for (index, hop) in hops.enumerated() {
                let resource = try await target.resource(context)
                path.append(hop.rel.rawValue)
                let includePath = path.joined(separator: ".")
                target = try CallTarget.following(
                    hop.rel, named: hop.linkName, variables: hop.variables, in: resource,
                    includePath: includePath, for: .hop(index + 1), resolver: context.resolver)
                if target.embedded != nil {
                    context.emit(.embeddedUsed(includePath: includePath, rel: hop.rel, count: 1))
                }
            }
            return try await body(context, target)
        }
    }

    /// Runs the call: fetches its resource (where its hops lead) in one traversal context
    /// within the call's deadline, and hands both to `body`.
    func run<Value: Sendable>(
        plan: IncludePlan = IncludePlan(), collectsFailures: Bool = false, sharing shared: FetchTable? = nil,
        _ body: @escaping @Sendable (TraversalContext, HALResource) async throws -> Value
    ) async throws -> Value {
        try checkDepth(plan)
        return try await follow(collectsFailures: collectsFailures, sharing: shared) { context, target in
            try await body(context, try await target.resource(context))
        }
    }

    /// The call's resource with every relationship of `plan` merged in.
    func merged(_ plan: IncludePlan) async throws -> (document: JSONValue, url: URL?) {
        try await run(plan: plan) { context, resource in
            (.object(try await Traverser(context: context).merged(resource, nodes: plan.children)), resource.baseURL)
        }
    }

    /// Sends an action within the call's deadline.
    func send(_ method: RequestMethod, to url: URL, body: RequestBody) async throws -> ResourceResponse {
        try await withinDeadline { try await act(method, to: url, body: body) }
    }

    /// The one way an action is sent (``send(_:to:body:)``, follow chains, form submissions):
    /// the call's pipeline, which validates. The caller runs it within the deadline.
    func act(_ method: RequestMethod, to url: URL, body: RequestBody, headers: HeaderFields = [:]) async throws
        -> ResourceResponse
    {
        try await pipeline.perform(url, method: method, body: body, headers: headers, includePath: nil) { $0 }
    }

    private func checkDepth(_ plan: IncludePlan) throws(HalleyError) {
        guard plan.depth <= options.maxIncludeDepth else {
            throw HalleyError(
                code: .limitExceeded,
                message: "include paths are \(plan.depth) levels deep; the limit is \(options.maxIncludeDepth)")
        }
    }
}
