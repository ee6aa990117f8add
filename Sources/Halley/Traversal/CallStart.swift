import Foundation

/// Where a call starts: a URL, a URL template expanded with the call's variables, or the
/// end of a follow chain.
enum CallStart: Sendable {
    case url(URL)
    case template(String)
    case chain(FollowChain)
}

extension ResourceManager {
    /// Runs one call, the one way every call runs: resolves the start, fetches its resource
    /// in one traversal context within the call's deadline, and hands both to `body`.
    ///
    /// - Parameters:
    ///   - variables: The call's variables, when already evaluated (the provider's closures
    ///     run once per call); evaluated from `options` otherwise.
    ///   - collectsFailures: Partial mode: failed relationships are recorded, not thrown.
    func call<Value: Sendable>(
        _ start: CallStart, plan: IncludePlan = IncludePlan(), options: CallOptions,
        variables: [String: TemplateValue]? = nil, collectsFailures: Bool = false,
        _ body: @escaping @Sendable (TraversalContext, HALResource) async throws -> Value
    ) async throws -> Value {
        try checkDepth(plan, options: options)
        let variables = variables ?? callVariables(options)
        let root: URL
        switch start {
        case .url(let url):
            root = url
        case .template(let template):
            root = try rootURL(template, variables: variables)
        case .chain(let chain):
            return try await chain.run(variables: variables) { context, target in
                try await body(context, try await target.resource(context))
            }
        }
        let context = makeContext(
            root: root, options: options, variables: variables, collectsFailures: collectsFailures)
        return try await context.withinDeadline {
            try await body(context, try await context.document(at: root, includePath: nil))
        }
    }

    /// The start's resource with every relationship of `plan` merged in.
    func merged(_ start: CallStart, plan: IncludePlan, options: CallOptions, variables: [String: TemplateValue]? = nil)
        async throws -> (document: JSONValue, url: URL?)
    {
        try await call(start, plan: plan, options: options, variables: variables) { context, resource in
            (.object(try await Traverser(context: context).merged(resource, nodes: plan.children)), resource.baseURL)
        }
    }

    /// The start's resource as a collection: its items with `plan` merged into each.
    func collection(
        _ start: CallStart, plan: IncludePlan, options: CallOptions, variables: [String: TemplateValue]? = nil
    )
        async throws -> ResourceCollection
    {
        try await call(start, plan: plan, options: options, variables: variables) { context, collection in
            let items = try await Traverser(context: context).items(
                of: collection, nodes: plan.children, includePath: nil)
            return ResourceCollection(
                items: items.map { .object($0) }, metadata: collection.state,
                links: collection.links, url: collection.baseURL ?? context.rootURL)
        }
    }

    /// ``collection(_:plan:options:variables:)`` for a pager: linked items are not fetched
    /// here but handed back as ``LinkedItems``, fetched as the pager's consumer reaches them.
    func collectionPage(
        _ start: CallStart, plan: IncludePlan, options: CallOptions, variables: [String: TemplateValue]? = nil
    ) async throws -> (collection: ResourceCollection, linked: LinkedItems?) {
        try await call(start, plan: plan, options: options, variables: variables) { context, collection in
            let url = collection.baseURL ?? context.rootURL
            var items: [JSONValue] = []
            var linked: LinkedItems?
            switch try await Traverser(context: context).itemsOrLinks(
                of: collection, nodes: plan.children, includePath: nil)
            {
            case .resources(let objects):
                items = objects.map { .object($0) }
            case .links(let links):
                linked = LinkedItems(
                    manager: self, links: links, targets: context.resolver.targets(in: collection), plan: plan,
                    options: options, variables: context.variables, trustRoot: context.rootURL,
                    width: context.pipeline.maxConcurrency)
            }
            let page = ResourceCollection(
                items: items, metadata: collection.state, links: collection.links, url: url)
            return (page, linked)
        }
    }

    func checkDepth(_ plan: IncludePlan, options: CallOptions) throws(HalleyError) {
        guard plan.depth <= options.maxIncludeDepth else {
            throw HalleyError(
                code: .limitExceeded,
                message: "include paths are \(plan.depth) levels deep; the limit is \(options.maxIncludeDepth)")
        }
    }
}
