import Foundation
import HalleyHAL

/// The items of a paginated collection as an `AsyncSequence`, page after page through
/// `next` links, with the include list applied to every page's items.
///
/// ```swift
/// for try await contact in manager.items(Contact.self, from: "https://api.example.com/contacts{?page,size}",
///                                        variables: ["size": 20], includes: ["website"]) {
///     print(contact.name)
/// }
/// let firstTen = try await manager.items(Contact.self, from: url).limited(toItems: 10).collect()
/// let tenth = try await manager.items(Contact.self, from: url).item(at: 9)
/// ```
///
/// Pages are fetched only when the consumer reaches them, so `prefix(_:)`, `first(where:)`
/// and `break` stop the requests too (opt into ``prefetching()`` to fetch one page ahead).
/// Items a page links to (`_links.item`) rather than embeds are fetched the same way: as the
/// consumer reaches them, in order, with at most `maxConcurrency` item fetches in flight (the
/// one awaited and those right after it); each item fetch is a call of its own, held to
/// ``CallOptions/maxRequests`` as each page is, and fetches left ahead of a consumer that
/// stops are cancelled.
/// ``prefix(_:)``, ``reduce(into:isolation:_:)``, ``first(isolation:where:)`` and the other
/// closure operations are the sequence's own and run their closures on the caller's actor, so
/// they compile in `@MainActor` code with models that are not `Sendable`.
/// A `next` link back to a page already seen ends the sequence with
/// ``HalleyError/Code/paginationCycle``; more than ``maxPages`` pages is
/// ``HalleyError/Code/limitExceeded``.
/// Credential headers go only to the origin of the first page (and
/// ``RequestPolicy/allowedOrigins``): a `next` link or an item on another origin is requested
/// without them.
public struct PagedItems<Item: Decodable>: AsyncSequence {
    /// Where enumeration starts: a URL, a URL template, or the end of a follow chain. Text
    /// without template expressions is a URL, exactly as if a `URL` were passed; only a real
    /// template can address pages by expanding a page variable.
    static func start(_ text: String) -> CallStart {
        if let template = try? URITemplate(text), template.variableNames.isEmpty, let url = URL(string: text),
            url.scheme != nil
        {
            return .url(url)
        }
        return .template(text)
    }

    let manager: ResourceManager
    let start: CallStart
    let includes: [Include]
    let decoder: JSONDecoder?
    let options: CallOptions
    var variables: [String: TemplateValue] = [:]
    var itemLimit: Int?
    var pageLimit: Int?
    var stopCondition: (@Sendable (PageInfo) -> Bool)?
    var prefetch = false

    /// The variable of a templated start URL that numbers pages (Spring: `page`).
    public var pageVariable = "page"
    /// The variable of a templated start URL that sizes pages (Spring: `size`).
    public var sizeVariable = "size"
    /// The number of the first page (Spring counts from 0).
    public var firstPageNumber = 0
    /// Where a page's metadata lives (`page`).
    public var pageMetadataKey = "page"
    /// A guard against endless APIs: more pages than this is an error.
    public var maxPages = 10_000

    init(manager: ResourceManager, start: CallStart, includes: [Include], decoder: JSONDecoder?, options: CallOptions) {
        self.manager = manager
        self.start = start
        self.includes = includes
        self.decoder = decoder
        self.options = options
    }

    /// What a stop predicate sees of each page: ``PagedItemsPageInfo``, which does not depend
    /// on `Item`.
    ///
    /// ```swift
    /// let firstTwoPages = manager.items(Order.self, from: url).stop { page in page.index == 1 }
    /// ```
    public typealias PageInfo = PagedItemsPageInfo

    // MARK: Limits

    /// Stops after `count` items.
    public func limited(toItems count: Int) -> PagedItems {
        var copy = self
        copy.itemLimit = Swift.max(0, count)
        return copy
    }

    /// Stops after `count` pages.
    public func limited(toPages count: Int) -> PagedItems {
        var copy = self
        copy.pageLimit = Swift.max(0, count)
        return copy
    }

    /// Stops after the first page for which `condition` is true (its items are still
    /// delivered).
    public func stop(when condition: @escaping @Sendable (PageInfo) -> Bool) -> PagedItems {
        var copy = self
        copy.stopCondition = condition
        return copy
    }

    /// Fetches the next page while the consumer works through the current one. This may
    /// request one page that is never read, if the consumer stops.
    public func prefetching() -> PagedItems {
        var copy = self
        copy.prefetch = true
        return copy
    }

    // MARK: AsyncSequence

    /// Creates the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(sequence: self)
    }

    /// Walks the pages; not shared between tasks.
    public struct Iterator: AsyncIteratorProtocol {
        let sequence: PagedItems
        private var buffer: [Item] = []
        private var bufferIndex = 0
        /// The page last read, while its `next` link may still be followed.
        private var following: Page?
        /// The next page's call, once its link has been resolved (when prefetching).
        private var nextCall: Call?
        private var started = false
        private var finished = false
        private var delivered = 0
        private var pages = 0
        private var walk: PageWalk
        /// The next page, fetched ahead, and the URL it was asked at.
        private var pending: (url: URL, task: Task<Page, any Error>)?
        /// The current page's linked items, fetched as they are reached.
        private var window: ItemWindow?

        init(sequence: PagedItems) {
            self.sequence = sequence
            walk = PageWalk(maxPages: sequence.maxPages)
        }

        /// The next item, fetching the next page when the current one is used up.
        public mutating func next() async throws -> Item? {
            try await next(isolation: nil)
        }

        /// The next item, with the iterator kept on the caller's actor (SE-0421): a
        /// `for try await` loop on the main actor does not hand the iterator, its page and its
        /// non-`Sendable` items to another executor; the pages are still fetched and decoded
        /// off the actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> Item? {
            while true {
                if let limit = sequence.itemLimit, delivered >= limit { return finish() }
                if bufferIndex < buffer.count {
                    defer { bufferIndex += 1 }
                    delivered += 1
                    return buffer[bufferIndex]
                }
                if let item = try await nextLinked(isolation: actor) { return item }
                if finished { return nil }
                if let limit = sequence.pageLimit, pages >= limit { return finish() }
                let page: LoadedPage
                do {
                    let call: Call
                    if !started {
                        started = true
                        call = try sequence.loader().call(at: sequence.start)
                    } else if let next = try nextPageCall() {
                        nextCall = nil
                        call = next
                    } else {
                        return finish()
                    }
                    // A chain's page is known only once the chain has been followed.
                    if call.hops.isEmpty { try walk.enter(call.rootURL) }
                    page = try await load(call, isolation: actor)
                    if !call.hops.isEmpty { try walk.enter(page.page.requestedURL) }
                } catch {
                    finished = true
                    throw error
                }
                pages += 1
                buffer = page.items
                bufferIndex = 0
                window = page.page.linked.map { linked in
                    // Fetching ahead stops at the item limit: those items would never be read.
                    let wanted = sequence.itemLimit.map { Swift.max(0, $0 - delivered) } ?? linked.count
                    return ItemWindow(linked, positions: 0..<Swift.min(linked.count, wanted))
                }
                following = page.page
                let info = PageInfo(
                    index: pages - 1, url: page.page.url, itemCount: page.itemCount,
                    metadata: page.metadata, links: page.page.links, document: page.page.document)
                if let stop = sequence.stopCondition, stop(info) { following = nil }
                // A link that does not resolve fails when the consumer reaches it, not here.
                if sequence.prefetch, sequence.pageLimit.map({ pages < $0 }) ?? true,
                    let call = try? nextPageCall(), !walk.hasVisited(call.rootURL)
                {
                    let loader = try sequence.loader()
                    pending = (call.rootURL, Task { try await loader.load(call) })
                }
            }
        }

        /// The call of the page after the one last read: its `next` link resolved once, by
        /// that call's resolver; `nil` when there is none (or the stop condition held).
        private mutating func nextPageCall() throws(HalleyError) -> Call? {
            if let nextCall { return nextCall }
            guard let following else { return nil }
            let call = try sequence.loader().call(following: .next, from: following)
            self.following = nil
            nextCall = call
            return call
        }

        private mutating func load(_ call: Call, isolation actor: isolated (any Actor)?) async throws -> LoadedPage {
            if let pending, pending.url == call.rootURL {
                self.pending = nil
                if let page = try? await pending.task.value { return try await sequence.decodedAway(page) }
                // The page fetched ahead failed: it is asked again, in a call of its own.
                let again = try sequence.loader().call(at: .url(call.rootURL), trusting: call.trustRoot)
                return try await sequence.loadPage(again)
            }
            pending?.task.cancel()
            pending = nil
            return try await sequence.loadPage(call)
        }

        /// The current page's next linked item; `nil` when it has none left.
        private mutating func nextLinked(isolation actor: isolated (any Actor)?) async throws -> Item? {
            guard let window else { return nil }
            do {
                guard let fetched = try await window.next() else {
                    self.window = nil
                    return nil
                }
                let item = try sequence.decoded(fetched, plan: window.items.plan)
                delivered += 1
                return item
            } catch {
                _ = finish()
                throw error
            }
        }

        private mutating func finish() -> Item? {
            finished = true
            pending?.task.cancel()
            pending = nil
            window?.cancel()
            window = nil
            return nil
        }
    }

    /// Every item (within the limits), in order.
    public func collect() async throws -> [Item] {
        var items: [Item] = []
        for try await item in self { items.append(item) }
        return items
    }

    // MARK: Random access

    /// The item at `index` (from 0), or `nil` past the end.
    ///
    /// With page-size metadata, or a templated start URL with a page variable, only the page
    /// holding the item is fetched (after the first page, unless the size variable is given);
    /// otherwise `next` links are walked. Of a page that links its items, only this item is
    /// fetched.
    public func item(at index: Int) async throws -> Item? {
        try await items(in: index..<(index + 1)).first
    }

    /// The items in `range`, fetching only the pages that cover them when the page size is
    /// known and pages are addressable; fewer items when the collection ends first. Of pages
    /// that link their items, only the items returned are fetched.
    ///
    /// Positions count from the first item the sequence would yield, and end at its item limit
    /// (``prefix(_:)``, ``limited(toItems:)``). A page fetched by number
    /// whose `page` metadata names another number or size throws
    /// ``HalleyError/Code/pageMismatch`` instead of handing back items from the wrong place.
    public func items(in range: Range<Int>) async throws -> [Item] {
        guard range.lowerBound >= 0 else { return [] }
        // The sequence ends at its item limit (`prefix`, `limited(toItems:)`): so do its positions.
        let range = itemLimit.map { range.clamped(to: 0..<Swift.max($0, range.lowerBound)) } ?? range
        guard !range.isEmpty else { return [] }
        let loader = try loader()
        var size: Int? = templateAddressesPages ? knownPageSize : nil
        var first: LoadedPage?
        if size == nil {
            let page = try await loadPage(try loader.call(at: start))
            first = page
            size = page.metadata?.size ?? (page.page.hasNext ? page.itemCount : nil)
        }
        if let size, size > 0, isAddressable(first: first) {
            let startNumber = first?.metadata?.number ?? startPageNumber
            if let total = first?.metadata?.totalElements, range.lowerBound >= total - startNumber * size { return [] }
            var result: [Item] = []
            for offset in (range.lowerBound / size)...((range.upperBound - 1) / size) {
                let number = startNumber + offset
                let page: LoadedPage
                if offset == 0, let first {
                    page = first
                } else {
                    page = try await loadPage(try addressedCall(number: number, first: first, loader: loader))
                    try check(page, isNumber: number, size: size)
                }
                result += try await items(of: page, startingAt: offset * size, in: range)
                if page.itemCount < size { break }
            }
            return result
        }
        // Walk `next` from the first page.
        var walk = PageWalk(maxPages: maxPages)
        var page: LoadedPage
        if let first {
            page = first
        } else {
            page = try await loadPage(try loader.call(at: start))
        }
        try walk.enter(page.requestedURL)
        var result: [Item] = []
        var position = 0
        while true {
            result += try await items(of: page, startingAt: position, in: range)
            position += page.itemCount
            guard position < range.upperBound, let next = try loader.call(following: .next, from: page.page) else {
                return result
            }
            try walk.enter(next.rootURL)
            page = try await loadPage(next)
        }
    }

    /// The items of `page` whose positions fall in `range`, when the page's first item is at
    /// position `start`: only those are fetched when the page links its items.
    private func items(of page: LoadedPage, startingAt start: Int, in range: Range<Int>) async throws -> [Item] {
        let positions = ((range.lowerBound - start)..<(range.upperBound - start)).clamped(to: 0..<page.itemCount)
        guard let linked = page.linked else { return Array(page.items[positions]) }
        let window = ItemWindow(linked, positions: positions)
        defer { window.cancel() }
        var items: [Item] = []
        while let fetched = try await window.next() { items.append(try decoded(fetched, plan: linked.plan)) }
        return items
    }

    // MARK: Pages

    /// A page with its items decoded, or with the links of items not fetched yet.
    struct LoadedPage {
        let page: Page
        /// Empty when the page links its items (``linked``).
        let items: [Item]
        let metadata: PageMetadata?

        var requestedURL: URL { page.requestedURL }
        var url: URL { page.url }
        var linked: LinkedItems? { page.linked }
        var links: Links { page.links }
        var itemCount: Int { page.itemCount }
    }

    /// A page size known without fetching: the size variable of a templated start.
    private var knownPageSize: Int? {
        guard case .template(let template) = start,
            (try? URITemplate(template))?.variableNames.contains(sizeVariable) == true,
            let value = callerVariables[sizeVariable]
        else { return nil }
        return Self.integer(value)
    }

    /// Whether the start is a template with the page variable, so page `n` is the template
    /// expanded with `n`.
    private var templateAddressesPages: Bool {
        guard case .template(let template) = start else { return false }
        return (try? URITemplate(template))?.variableNames.contains(pageVariable) == true
    }

    /// The caller's variables over the call's.
    private var callerVariables: [String: TemplateValue] { callOptions.variables }

    /// The zero-based number of the page the sequence starts on, when no page has been read:
    /// the caller's page variable of a templated start, else the first page.
    private var startPageNumber: Int {
        guard templateAddressesPages, let value = callerVariables[pageVariable], let number = Self.integer(value) else {
            return 0
        }
        return number - firstPageNumber
    }

    private static func integer(_ value: TemplateValue) -> Int? {
        switch value {
        case .string(let text): Int(text)
        default: nil
        }
    }

    /// Whether page `n` can be addressed directly: a templated start with the page variable,
    /// or Spring metadata with a `page` query item on the first page's links.
    private func isAddressable(first: LoadedPage?) -> Bool {
        if templateAddressesPages { return true }
        guard let first, first.metadata != nil else { return false }
        return first.links.link(for: .first).map { queryItem(pageVariable, of: $0.href) != nil } ?? false
            || first.page.address(of: .next).map { queryItem(pageVariable, of: $0.absoluteString) != nil } ?? false
    }

    /// The call of the page numbered `number` (zero-based): the template expanded with it,
    /// or the server's own `first` (else `next`) link with its page query item replaced. It
    /// trusts the first page's start, as every page of the enumeration does.
    private func addressedCall(number: Int, first: LoadedPage?, loader: PageLoader) throws -> Call {
        let value = String(number + firstPageNumber)
        if templateAddressesPages {
            return try loader.call(
                at: start, variables: [pageVariable: .string(value)], trusting: first?.page.trustRoot)
        }
        guard let first else {
            throw HalleyError(
                code: .pageMismatch, message: "page \(number) cannot be addressed before the first page is read")
        }
        let model = first.page.address(of: .first) ?? first.page.address(of: .next) ?? first.url
        guard var components = URLComponents(url: model, resolvingAgainstBaseURL: false) else {
            return try loader.call(at: .url(model), trusting: first.page.trustRoot)
        }
        // Replace the number where the server put it, so the URL keeps the server's own shape.
        var items = components.queryItems ?? []
        if let position = items.firstIndex(where: { $0.name == pageVariable }) {
            items[position].value = value
        } else {
            items.append(URLQueryItem(name: pageVariable, value: value))
        }
        components.queryItems = items
        guard let url = components.url else {
            throw HalleyError(
                code: .invalidURL, url: model, message: "cannot put page \(value) into the first page's URL")
        }
        return try loader.call(at: .url(url), trusting: first.page.trustRoot)
    }

    /// A page fetched by number must be that page: a server that ignores the page variable
    /// would otherwise hand back the first page's items for every position.
    private func check(_ page: LoadedPage, isNumber number: Int, size: Int) throws(HalleyError) {
        guard let metadata = page.metadata else { return }
        if metadata.number != number || metadata.size != size {
            throw HalleyError(
                code: .pageMismatch, url: page.requestedURL,
                message:
                    "asked for page \(number) of size \(size) but the server answered page \(metadata.number) of size \(metadata.size)"
            )
        }
    }

    private func queryItem(_ name: String, of href: String) -> String? {
        URLComponents(string: href)?.queryItems?.first { $0.name == name }?.value
    }

    /// The call's options with the sequence's own variables laid over them.
    private var callOptions: CallOptions {
        var options = self.options
        options.variables = options.variables.overlaid(with: variables)
        return options
    }

    /// The loader of this sequence's pages: linked items are left for the consumer.
    func loader() throws(HalleyError) -> PageLoader {
        PageLoader(manager: manager, plan: try manager.plan(includes), options: callOptions, fetchesLinkedItems: false)
    }

    func decoded(_ page: Page) throws(HalleyError) -> LoadedPage {
        let items = try manager.decode(
            [Item].self, from: .array(page.items), decoder: decoder, plan: page.plan,
            url: page.url)
        return LoadedPage(page: page, items: items, metadata: page.metadata(at: pageMetadataKey))
    }

    /// A linked item as fetched, decoded on its own (a failure names the item's URL).
    func decoded(_ fetched: (object: JSONObject, url: URL), plan: IncludePlan) throws(HalleyError) -> Item {
        try manager.decode(Item.self, from: .object(fetched.object), decoder: decoder, plan: plan, url: fetched.url)
    }

    /// ``decoded(_:)`` on the generic executor, not on the actor of an iterator that runs on
    /// its caller's (the main actor, in an app).
    func decodedAway(_ page: Page) async throws(HalleyError) -> LoadedPage {
        try decoded(page)
    }

    func loadPage(_ call: Call) async throws -> LoadedPage {
        try decoded(try await loader().load(call))
    }
}

extension ResourceManager {
    /// Enumerates a paginated collection's items, page by page, with `includes` applied to
    /// every item.
    ///
    /// - Parameters:
    ///   - type: The item model.
    ///   - start: The first page's URL, or a URL template (e.g. `…/contacts{?page,size}`;
    ///     a template with a page variable makes pages addressable for random access).
    ///   - variables: Variables for the template (and every templated link followed).
    ///   - includes: Relationships merged into each item.
    ///   - decoder: Decodes the items; `nil` uses the manager's ``ResourceManager/Configuration/decoder``.
    ///   - options: Options for every page's call.
    public func items<Item: Decodable>(
        _ type: Item.Type, from start: String, variables: [String: TemplateValue] = [:], includes: [Include] = [],
        decoder: JSONDecoder? = nil, options: CallOptions = CallOptions()
    ) -> PagedItems<Item> {
        var sequence = PagedItems<Item>(
            manager: self, start: PagedItems<Item>.start(start), includes: includes,
            decoder: decoder, options: options)
        sequence.variables = variables
        return sequence
    }

    /// ``items(_:from:variables:includes:decoder:options:)-(_,String,[String:TemplateValue],_,_,_)``
    /// with the variables given as runtime values (`["size": pageSize]` with `pageSize: Int`).
    public func items<Item: Decodable>(
        _ type: Item.Type, from start: String, variables: [String: any TemplateValueConvertible],
        includes: [Include] = [], decoder: JSONDecoder? = nil, options: CallOptions = CallOptions()
    ) -> PagedItems<Item> {
        items(
            type, from: start, variables: variables.mapValues(\.templateValue), includes: includes, decoder: decoder,
            options: options)
    }

    /// Enumerates a paginated collection's items starting at `url`.
    public func items<Item: Decodable>(
        _ type: Item.Type, from url: URL, includes: [Include] = [], decoder: JSONDecoder? = nil,
        options: CallOptions = CallOptions()
    ) -> PagedItems<Item> {
        PagedItems(manager: self, start: .url(url), includes: includes, decoder: decoder, options: options)
    }
}

/// The pages an enumeration has read: the one place a `next` link back to a page already
/// read becomes ``HalleyError/Code/paginationCycle`` and too many pages
/// ``HalleyError/Code/limitExceeded``.
struct PageWalk {
    let maxPages: Int
    private var visited: Set<String> = []

    init(maxPages: Int) {
        self.maxPages = maxPages
    }

    /// Records that `url` is about to be read.
    mutating func enter(_ url: URL) throws(HalleyError) {
        guard !visited.contains(url.absoluteString) else {
            throw HalleyError(
                code: .paginationCycle, url: url,
                message: "the next link points back to a page already read")
        }
        guard visited.count < maxPages else {
            throw HalleyError(code: .limitExceeded, url: url, message: "more than \(maxPages) pages")
        }
        visited.insert(url.absoluteString)
    }

    /// Whether `url` was read already.
    func hasVisited(_ url: URL) -> Bool { visited.contains(url.absoluteString) }
}

extension PagedItems: Sendable {}
