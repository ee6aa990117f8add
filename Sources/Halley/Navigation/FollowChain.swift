import Foundation
import HalleyHAL
import HalleyTransport

/// A path through an API composed one hop at a time, like a client SDK composes endpoints:
/// start at an entry point, follow rels with template variables, then fetch or act.
///
/// ```swift
/// let contacts = try await manager.entry(rootURL)
///     .follow("ex:contacts", ["page": 0])
///     .follow("next")
///     .page(of: Contact.self)
/// ```
///
/// Chains are values: build them once and extend them anywhere, e.g. in your own SDK type:
///
/// ```swift
/// extension ContactsAPI {
///     var contacts: FollowChain { root.follow("ex:contacts") }
///     func contact(id: String) -> FollowChain { root.follow("ex:contact", ["id": .string(id)]) }
/// }
/// ```
///
/// Nothing is fetched until a terminal call (`get`, `resource`, `url`, `send`, `items`). Each
/// run uses embedded resources where they are, the manager's policy, one request per URL and
/// the observer events of include traversal. A missing rel is
/// ``HalleyError/Code/missingRelation`` naming the hop and the rels that were available.
public struct FollowChain: Sendable {
    /// One step of a chain.
    public struct Hop: Sendable, Hashable {
        /// The relation to follow.
        public let rel: LinkRelation
        /// Variables for the relation's templated link, over the call's.
        public let variables: [String: TemplateValue]
        /// Picks the link whose HAL `name` matches when the relation has several.
        public let linkName: String?
    }

    /// The manager running the chain.
    public let manager: ResourceManager
    /// The entry point: a URL or a URL template.
    public let entry: String
    /// The hops, in order.
    public let hops: [Hop]
    /// Options for every request of the chain.
    public let options: CallOptions

    /// A chain with one more hop.
    ///
    /// - Parameters:
    ///   - rel: The relation to follow from the current resource.
    ///   - variables: Expand its templated link.
    ///   - linkName: Picks one of several links by HAL `name`.
    public func follow(_ rel: LinkRelation, _ variables: [String: TemplateValue] = [:], named linkName: String? = nil)
        -> FollowChain
    {
        FollowChain(
            manager: manager, entry: entry, hops: hops + [Hop(rel: rel, variables: variables, linkName: linkName)],
            options: options)
    }

    /// A chain with one more hop, its variables given as runtime values.
    ///
    /// ```swift
    /// let id = 42
    /// let order = manager.entry(rootURL).follow("ea:order", ["id": id])
    /// ```
    public func follow(
        _ rel: LinkRelation, _ variables: [String: any TemplateValueConvertible], named linkName: String? = nil
    ) -> FollowChain {
        follow(rel, variables.mapValues(\.templateValue), named: linkName)
    }

    /// The same chain with other options.
    public func with(options: CallOptions) -> FollowChain {
        FollowChain(manager: manager, entry: entry, hops: hops, options: options)
    }

    // MARK: Terminal calls

    /// The resource at the end of the chain, with `includes` merged in.
    public func get(includes: [Include] = []) async throws -> JSONValue {
        try await Call(manager, at: callStart, options: options).merged(manager.plan(includes)).document
    }

    /// The resource at the end of the chain, with `includes` merged in, decoded once as `type`
    /// (with the manager's decoder when `decoder` is `nil`).
    public func get<Item: Decodable>(
        _ type: Item.Type, includes: [Include] = [], decoder: JSONDecoder? = nil
    ) async throws -> Item {
        try await manager.item(typedRequest(Item.self, includes: includes, decoder: decoder), from: callStart)
    }

    /// The page at the end of the chain: a collection's items decoded as `Item`, with its
    /// metadata and links. The chain and the page are one call (one deadline, one request per
    /// URL); ``ResourceManager/nextPage(of:)`` continues from the page's own URL.
    public func page<Item: Decodable>(
        of type: Item.Type, includes: [Include] = [], decoder: JSONDecoder? = nil
    ) async throws -> PaginationPage<Item> {
        try await manager.page(typedRequest(Item.self, includes: includes, decoder: decoder), from: callStart)
    }

    /// The HAL resource at the end of the chain, as it arrived.
    public func resource() async throws -> HALResource {
        try await Call(manager, at: callStart, options: options).run { _, resource in resource }
    }

    /// Where the chain ends, without fetching the last resource: for acting on it.
    public func url() async throws -> URL {
        try await Call(manager, at: callStart, options: options).follow { context, target in
            try target.destination(context.resolver)
        }
    }

    /// Sends an action to where the chain ends (the last hop is not fetched).
    ///
    /// Credentials go to the origin of the resource holding the last link.
    public func send(_ method: RequestMethod, body: RequestBody = .none) async throws -> ActionResponse {
        let call = try Call(manager, at: callStart, options: options)
        let (url, trust) = try await call.follow { context, target in
            (try target.destination(context.resolver), target.trustRoot)
        }
        // The action is a call of its own, trusting the resource that holds the last link.
        let action = try Call(manager, at: .url(url), options: options, variables: call.variables, trusting: trust)
        return ActionResponse(response: try await action.send(method, to: url, body: body), method: method)
    }

    /// The items of the collection at the end of the chain, page after page. The chain is
    /// followed when the first page is needed.
    public func items<Item: Decodable>(
        _ type: Item.Type, includes: [Include] = [], decoder: JSONDecoder? = nil
    ) -> PagedItems<Item> {
        PagedItems(manager: manager, start: callStart, includes: includes, decoder: decoder, options: options)
    }

    /// A typed request carrying the chain's options; its URL is unused (the chain starts it).
    private func typedRequest<Item: Decodable>(_ type: Item.Type, includes: [Include], decoder: JSONDecoder?)
        -> HalleyRequest<Item>
    {
        HalleyRequest<Item>(url: entry, includes: includes, decoder: decoder, options: options)
    }

    /// Where the call of this chain starts: its entry, then its hops.
    var callStart: CallStart {
        .chain(entry: entry, hops: hops.map { CallHop(rel: $0.rel, variables: $0.variables, linkName: $0.linkName) })
    }
}

extension ResourceManager {
    /// Starts a follow chain at an entry point (a URL or a URL template).
    ///
    /// ```swift
    /// let api = manager.entry("https://api.example.com/")
    /// let contact = try await api.follow("ex:contact", ["id": "7"]).get(Contact.self, includes: ["website"])
    /// ```
    public func entry(_ entry: String, options: CallOptions = CallOptions()) -> FollowChain {
        FollowChain(manager: self, entry: entry, hops: [], options: options)
    }

    /// Starts a follow chain at a URL.
    public func entry(_ url: URL, options: CallOptions = CallOptions()) -> FollowChain {
        entry(url.absoluteString, options: options)
    }
}
