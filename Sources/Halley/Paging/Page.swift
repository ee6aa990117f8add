import Foundation
import HalleyHAL

/// One page of a collection as loaded, its items still JSON: the one page value behind
/// every paging API (``ResourceManager/requestPage(_:)``, ``ResourceManager/nextPage(of:)``,
/// ``ResourceManager/resourceCollectionWithMetadata(from:plan:options:)``, ``PagedItems``
/// with its random access, and follow chains that end in a page).
struct Page: Sendable {
    /// Where the page's call started: the URL asked for, or where a chain led.
    let requestedURL: URL
    /// The page's own URL.
    let url: URL
    /// The items with the include plan merged in; empty when ``linked`` holds them.
    let items: [JSONValue]
    /// The items the page links to, left for a pager's consumer to fetch.
    let linked: LinkedItems?
    /// The include plan merged into the items.
    let plan: IncludePlan
    /// The page document as the server sent it: what a server other than Spring keeps in the
    /// page's own members (`count`, `total`) is read from here.
    let document: HALResource
    /// The page's links (`next`, `prev`, `first`, ...).
    let links: Links
    /// Whose origin receives the credentials of the page, its items and the pages after it:
    /// the start of the enumeration's first page, never a later page's own URL.
    let trustRoot: URL

    var itemCount: Int { linked?.count ?? items.count }

    /// The page's attributes (Spring's `page` object among them).
    var state: JSONObject { document.state }

    /// Whether the page links a next page.
    var hasNext: Bool { links.link(for: .next) != nil }

    /// The Spring-style metadata under `key`.
    func metadata(at key: String) -> PageMetadata? {
        PageMetadata(state[key]?.objectValue)
    }

    /// Where the link `rel` points, read to address other pages by number: not followed, so
    /// nothing is requested and no event is emitted.
    func address(of rel: LinkRelation) -> URL? {
        links.link(for: rel).flatMap { URLResolution.resolve($0.href, against: url) }
    }

    /// The page as the public collection value.
    var collection: ResourceCollection {
        ResourceCollection(items: items, metadata: state, links: links, url: url, document: document)
    }
}

/// Loads pages: the one loader behind every paging API. Each page is a call of its own (its
/// own deadline and ``CallOptions/maxRequests``); a page reached from another (its `next`,
/// `prev`, or a page addressed by number) keeps the first page's trust root, so a link to
/// another origin never receives the enumeration's credentials.
struct PageLoader: Sendable {
    let manager: ResourceManager
    /// Merged into every item.
    let plan: IncludePlan
    let options: CallOptions
    /// Whether linked items are fetched in the page's call (a page handed over whole) or
    /// left to the consumer (a pager's page).
    let fetchesLinkedItems: Bool

    /// The call of the page at `start`, with `variables` laid over the options' (a page
    /// number), trusting `trustRoot` (the first page's) when given, else its own start.
    func call(at start: CallStart, variables: [String: TemplateValue] = [:], trusting trustRoot: URL? = nil)
        throws(HalleyError) -> Call
    {
        var options = self.options
        if !variables.isEmpty { options.variables = options.variables.overlaid(with: variables) }
        return try Call(manager, at: start, options: options, trusting: trustRoot)
    }

    /// The call of the page that the `rel` link (`next`, `prev`) of a page leads to; `nil`
    /// when the page has no such link. The call's relation resolver resolves the link, so a
    /// deprecated one reports that it was followed.
    func call(following rel: LinkRelation, in links: Links, of url: URL, trusting trustRoot: URL)
        throws(HalleyError) -> Call?
    {
        guard let link = links.link(for: rel) else { return nil }
        return try call(at: .link(link, base: url), trusting: trustRoot)
    }

    /// ``call(following:in:of:trusting:)`` from a loaded page.
    func call(following rel: LinkRelation, from page: Page) throws(HalleyError) -> Call? {
        try call(following: rel, in: page.links, of: page.url, trusting: page.trustRoot)
    }

    /// The page `call` starts at (or where its chain leads), with the plan merged into its
    /// items.
    func load(_ call: Call) async throws -> Page {
        let plan = self.plan
        let fetchesLinkedItems = self.fetchesLinkedItems
        return try await call.run(plan: plan) { context, collection in
            let url = collection.baseURL ?? context.rootURL
            let traverser = Traverser(context: context)
            var items: [JSONValue] = []
            var linked: LinkedItems?
            if fetchesLinkedItems {
                items = try await traverser.items(of: collection, nodes: plan.children, includePath: nil).map {
                    .object($0)
                }
            } else {
                switch try await traverser.itemsOrLinks(of: collection, nodes: plan.children, includePath: nil) {
                case .resources(let objects):
                    items = objects.map { .object($0) }
                case .links(let links):
                    linked = LinkedItems(
                        call: call, links: links, targets: context.resolver.targets(in: collection), plan: plan)
                }
            }
            return Page(
                requestedURL: call.hops.isEmpty ? call.rootURL : url, url: url, items: items, linked: linked,
                plan: plan, document: collection, links: collection.links, trustRoot: call.trustRoot)
        }
    }
}
