import Foundation

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
public struct PagedItems<Item: Decodable>: AsyncSequence {
    /// Where enumeration starts.
    enum Start: Sendable {
        case url(URL)
        case template(String)
        case chain(FollowChain)

        /// Text without template expressions is a URL, exactly as if a `URL` were passed;
        /// only a real template can address pages by expanding a page variable.
        init(_ text: String) {
            if let template = try? URITemplate(text), template.variableNames.isEmpty,
                let url = URL(string: text), url.scheme != nil
            {
                self = .url(url)
            } else {
                self = .template(text)
            }
        }
    }

    let manager: ResourceManager
    let start: Start
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

    init(manager: ResourceManager, start: Start, includes: [Include], decoder: JSONDecoder?, options: CallOptions) {
        self.manager = manager
        self.start = start
        self.includes = includes
        self.decoder = decoder
        self.options = options
    }

    /// What a stop predicate sees of each page.
    public struct PageInfo: Sendable {
        /// Zero-based position of the page in this enumeration.
        public let index: Int
        /// The page's URL.
        public let url: URL
        /// The number of items on it.
        public let itemCount: Int
        /// Its Spring-style metadata, when present.
        public let metadata: PageMetadata?
        /// Its links.
        public let links: Links
    }

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
        private var nextURL: URL?
        private var started = false
        private var finished = false
        private var delivered = 0
        private var pages = 0
        private var walk: PageWalk
        private var pending: Task<RawItemsPage, any Error>?
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
                let target: CallStart
                if !started {
                    started = true
                    target = try sequence.firstPage()
                } else if let next = nextURL {
                    target = .url(next)
                } else {
                    return finish()
                }
                let page: LoadedPage
                do {
                    if case .url(let url) = target { try walk.enter(url) }
                    page = try await load(target, isolation: actor)
                    // A chain's page is known only once the chain has been followed.
                    if case .chain = target { try walk.enter(page.requestedURL) }
                } catch {
                    finished = true
                    throw error
                }
                pages += 1
                buffer = page.items
                bufferIndex = 0
                window = page.linked.map { linked in
                    // Fetching ahead stops at the item limit: those items would never be read.
                    let wanted = sequence.itemLimit.map { Swift.max(0, $0 - delivered) } ?? linked.count
                    return ItemWindow(linked, positions: 0..<Swift.min(linked.count, wanted))
                }
                nextURL = page.next
                let info = PageInfo(
                    index: pages - 1, url: page.url, itemCount: page.itemCount,
                    metadata: page.metadata, links: page.links)
                if let stop = sequence.stopCondition, stop(info) { nextURL = nil }
                if sequence.prefetch, let next = nextURL, !walk.hasVisited(next),
                    sequence.pageLimit.map({ pages < $0 }) ?? true
                {
                    let loader = sequence.loader
                    pending = Task { try await loader.load(.url(next)) }
                }
            }
        }

        private mutating func load(_ target: CallStart, isolation actor: isolated (any Actor)?) async throws
            -> LoadedPage
        {
            if case .url(let url) = target, let pending, let raw = try? await pending.value, raw.requestedURL == url {
                self.pending = nil
                return try await sequence.decodedAway(raw)
            }
            pending?.cancel()
            pending = nil
            return try await sequence.loadPage(target)
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
            pending?.cancel()
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
        var size: Int? = templateAddressesPages ? knownPageSize : nil
        var first: LoadedPage?
        if size == nil {
            let page = try await loadPage(try firstPage())
            first = page
            size = page.metadata?.size ?? (page.next == nil ? nil : page.itemCount)
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
                    page = try await loadPage(.url(try addressedURL(number: number, first: first)))
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
            page = try await loadPage(try firstPage())
        }
        try walk.enter(page.requestedURL)
        var result: [Item] = []
        var position = 0
        while true {
            result += try await items(of: page, startingAt: position, in: range)
            position += page.itemCount
            guard position < range.upperBound, let next = page.next else { return result }
            try walk.enter(next)
            page = try await loadPage(.url(next))
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
        let requestedURL: URL
        let url: URL
        let items: [Item]
        /// The items the page links to instead of embedding them (``items`` is then empty).
        let linked: LinkedItems?
        let metadata: PageMetadata?
        let links: Links
        let next: URL?

        var itemCount: Int { linked?.count ?? items.count }
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
            || first.next.map { queryItem(pageVariable, of: $0.absoluteString) != nil } ?? false
    }

    /// The URL of the page numbered `number` (zero-based): the template expanded with it, or
    /// the server's own `first` (else `next`) link with its page query item replaced.
    private func addressedURL(number: Int, first: LoadedPage?) throws -> URL {
        if templateAddressesPages { return try pageURL(number: number) }
        guard let first else {
            throw HalleyError(
                code: .pageMismatch, message: "page \(number) cannot be addressed before the first page is read")
        }
        let model =
            first.links.link(for: .first).flatMap { URLResolution.resolve($0.href, against: first.url) }
            ?? first.next ?? first.url
        guard var components = URLComponents(url: model, resolvingAgainstBaseURL: false) else { return model }
        // Replace the number where the server put it, so the URL keeps the server's own shape.
        let value = String(number + firstPageNumber)
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
        return url
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

    /// Where the first page is: the start URL, the template expanded with the caller's
    /// variables, or the end of the chain (followed when loaded).
    func firstPage() throws -> CallStart {
        switch start {
        case .url(let url): .url(url)
        case .template: .url(try pageURL(number: nil))
        case .chain(let chain): .chain(chain)
        }
    }

    /// The templated start expanded with `number` as the page variable (`nil`: the caller's
    /// own value, if any).
    func pageURL(number: Int?) throws -> URL {
        guard case .template(let template) = start else {
            throw HalleyError(code: .pageMismatch, message: "only a templated start addresses pages by number")
        }
        var options = callOptions
        if let number { options.variables[pageVariable] = .string(String(number + firstPageNumber)) }
        return try Call(manager, at: .template(template), options: options).rootURL
    }

    /// The call's options with the sequence's own variables laid over them.
    private var callOptions: CallOptions {
        var options = self.options
        options.variables = options.variables.overlaid(with: variables)
        return options
    }

    var loader: PageLoader {
        PageLoader(manager: manager, includes: includes, options: callOptions, pageMetadataKey: pageMetadataKey)
    }

    func decoded(_ raw: RawItemsPage) throws(HalleyError) -> LoadedPage {
        let items = try manager.decode(
            [Item].self, from: .array(raw.items), decoder: decoder, plan: raw.plan,
            url: raw.url)
        return LoadedPage(
            requestedURL: raw.requestedURL, url: raw.url, items: items, linked: raw.linked, metadata: raw.metadata,
            links: raw.links, next: raw.next)
    }

    /// A linked item as fetched, decoded on its own (a failure names the item's URL).
    func decoded(_ fetched: (object: JSONObject, url: URL), plan: IncludePlan) throws(HalleyError) -> Item {
        try manager.decode(Item.self, from: .object(fetched.object), decoder: decoder, plan: plan, url: fetched.url)
    }

    /// ``decoded(_:)`` on the generic executor, not on the actor of an iterator that runs on
    /// its caller's (the main actor, in an app).
    func decodedAway(_ raw: RawItemsPage) async throws(HalleyError) -> LoadedPage {
        try decoded(raw)
    }

    func loadPage(_ target: CallStart) async throws -> LoadedPage {
        try decoded(try await loader.load(target))
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
            manager: self, start: PagedItems<Item>.Start(start), includes: includes,
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

/// A page as fetched: items still JSON, so a prefetching task carries nothing of `Item`.
struct RawItemsPage: Sendable {
    let requestedURL: URL
    let url: URL
    let items: [JSONValue]
    /// The items the page links to, not fetched yet (``items`` is then empty).
    let linked: LinkedItems?
    let plan: IncludePlan
    let metadata: PageMetadata?
    let links: Links
    let next: URL?
}

/// Everything needed to fetch a page, without `Item`.
struct PageLoader: Sendable {
    let manager: ResourceManager
    let includes: [Include]
    let options: CallOptions
    let pageMetadataKey: String

    func load(_ start: CallStart) async throws -> RawItemsPage {
        let plan = try manager.plan(includes)
        let call = try Call(manager, at: start, options: options)
        let (collection, linked) = try await call.collectionPage(plan)
        let next = try collection.links.link(for: .next).map { link throws(HalleyError) in
            try LinkTarget.url(of: link, base: collection.url, variables: call.variables)
        }
        let requested = if case .url(let url) = start { url } else { collection.url }
        return RawItemsPage(
            requestedURL: requested, url: collection.url, items: collection.items, linked: linked, plan: plan,
            metadata: PageMetadata(collection.metadata[pageMetadataKey]?.objectValue),
            links: collection.links, next: next)
    }
}

extension PagedItems: Sendable {}
