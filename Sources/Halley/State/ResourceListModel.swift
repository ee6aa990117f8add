import HalleyHAL

#if canImport(Observation)
    import Foundation
    import Observation

    /// An observable, live list of a HAL collection's items across its `next` pages, for SwiftUI
    /// and any code that reads through Observation.
    ///
    /// Pages come through the paging engine (embedded items first, else linked ones, each with
    /// the include list merged in, as ``ResourceManager/items(_:from:includes:decoder:options:)``
    /// reads them), one ``loadMore()`` at a time. The rows stay live: an item whose stored state
    /// changes (an edit through any handle, an optimistic edit, a refetch) is replaced in place,
    /// in time independent of the list's length; a deleted item disappears; an item the server
    /// lists on two pages shows once, where it came first; a page refetched with other items is
    /// laid out again.
    ///
    /// ```swift
    /// @MainActor func showOrders(_ manager: ResourceManager) async {
    ///     let orders = ResourceListModel(
    ///         manager, from: URL(string: "https://api.example.com/orders")!, as: Order.self)
    ///     await orders.loadMore()
    ///     print(orders.items.map(\.status), orders.hasMore)
    /// }
    /// struct Order: Decodable, Sendable { let status: String }
    /// ```
    ///
    /// In SwiftUI: `List(orders.rows) { row in … }`, `.task { await orders.loadMore() }`, and
    /// `loadMore()` again from the last row's `.onAppear` while ``hasMore``. The model stops
    /// following the store when it is released, or on ``stop()``.
    @MainActor @Observable
    public final class ResourceListModel<Item: Decodable & Sendable> {
        /// One item of the list, with its identity and whether it shows an unanswered edit.
        public struct Row: Identifiable, Sendable {
            /// The item's own URL (its `self` link), or the page's URL with its position for an
            /// item without one.
            public let id: URL
            /// The item decoded.
            public let value: Item
            /// Whether it shows an optimistic edit the server has not answered yet.
            public let isPending: Bool
            /// Whether its stored state is out of date.
            public let isStale: Bool
        }

        /// One page of the list: where it is, and its loading state.
        public struct Page: Sendable {
            /// The page's URL; `nil` before the first page arrives.
            public let url: URL?
            /// `true` while the page is being loaded or refreshed.
            public internal(set) var isLoading: Bool
            /// `true` once the stored page is out of date, until it is loaded again.
            public internal(set) var isStale: Bool
            /// The error of the page's last load or refresh; `nil` after a success.
            public internal(set) var error: (any Error)?
        }

        /// The rows, in the server's order across the pages loaded.
        public private(set) var rows: [Row] = []
        /// The pages loaded (and the one loading), in order.
        public private(set) var pages: [Page] = []
        /// Whether there is a page to load after the last one (`true` before the first).
        public private(set) var hasMore = true
        /// `true` while a page is loaded or the list refreshed.
        public private(set) var isLoading = false
        /// The last error: a page's, an item's that did not decode (the item is left out), or
        /// of an optimistic edit of an item just rolled back.
        public private(set) var error: (any Error)?
        /// Whether a page that goes stale is loaded again at once.
        public var refreshesWhenStale: Bool
        /// How often every loaded page is asked for again (conditionally, as ``refresh()``)
        /// while the list follows the store (from its first page until ``stop()`` or its
        /// release); `nil`, the default, never. Not positive: no refreshes, and ``error`` says
        /// why.
        ///
        /// ```swift
        /// @MainActor func liveOrders(_ orders: ResourceListModel<Order>) async {
        ///     orders.refreshInterval = .seconds(30)
        ///     await orders.loadMore()
        /// }
        /// struct Order: Decodable, Sendable { let status: String }
        /// ```
        public var refreshInterval: Duration? {
            didSet { scheduleRefreshes() }
        }

        /// The items, in order (``rows`` without their marks).
        public var items: [Item] { rows.map(\.value) }

        @ObservationIgnored private let manager: ResourceManager
        @ObservationIgnored private let start: URL
        @ObservationIgnored private let includes: [Include]
        @ObservationIgnored private let options: CallOptions
        @ObservationIgnored private let decoder: JSONDecoder?
        /// Each loaded page as the engine read it (for its `next` link), with when it was stored.
        @ObservationIgnored private var loaded: [(page: Halley.Page, storedAt: Date?)] = []
        /// Each page's rows and their merged JSON, before duplicates are dropped.
        @ObservationIgnored private var pageRows: [[(row: Row, json: JSONObject)]] = []
        /// Where each item's row is: its index in ``rows``, its page and its place there.
        @ObservationIgnored private var positions: [String: (row: Int, page: Int, place: Int)] = [:]
        @ObservationIgnored private var mailbox: ListMailbox?
        // Cancelled from `deinit`, which is not isolated to the main actor: the lock makes the
        // handover safe, and `Task.cancel()` may be called from any thread.
        @ObservationIgnored private let tasks = LockedValue<[Task<Void, Never>]>([])
        // The interval's task, cancelled as `tasks` are.
        @ObservationIgnored private let ticker = LockedValue<Task<Void, Never>?>(nil)
        /// Each loaded page's number by its URL, so a page's event finds it at once.
        @ObservationIgnored private var pageNumbers: [String: Int] = [:]

        /// A list of the collection at `url`, its items decoded as `type`.
        ///
        /// ```swift
        /// @MainActor func orders(_ manager: ResourceManager) -> ResourceListModel<Order> {
        ///     ResourceListModel(
        ///         manager, from: URL(string: "https://api.example.com/orders")!, as: Order.self,
        ///         includes: ["customer"])
        /// }
        /// struct Order: Decodable, Sendable { let status: String }
        /// ```
        ///
        /// - Parameters:
        ///   - manager: The manager whose store the list follows (without one, the rows do not update).
        ///   - url: The collection's first page.
        ///   - type: The item model.
        ///   - includes: Relationships merged into each item, as in every typed call.
        ///   - decoder: Decodes the items; `nil` uses the manager's.
        ///   - options: Options for every page's call.
        ///   - refreshesWhenStale: Whether a page that goes stale is loaded again at once.
        public init(
            _ manager: ResourceManager, from url: URL, as type: Item.Type, includes: [Include] = [],
            decoder: JSONDecoder? = nil, options: CallOptions = CallOptions(), refreshesWhenStale: Bool = false
        ) {
            self.manager = manager
            start = url
            self.includes = includes
            self.decoder = decoder
            self.options = options
            self.refreshesWhenStale = refreshesWhenStale
        }

        deinit {
            for task in tasks.get() { task.cancel() }
            ticker.get()?.cancel()
            mailbox?.finish()
        }

        // MARK: Loading

        /// Loads the next page (the first on the first call) and appends its items; nothing
        /// when there is no next page or a page is loading. A failed page keeps its error in
        /// ``pages`` and ``error``, and the next call asks for it again.
        ///
        /// ```swift
        /// @MainActor func reachedEnd(_ orders: ResourceListModel<Order>) async {
        ///     if orders.hasMore { await orders.loadMore() }
        /// }
        /// struct Order: Decodable, Sendable { let status: String }
        /// ```
        public func loadMore() async {
            guard hasMore, !isLoading else { return }
            isLoading = true
            defer { isLoading = false }
            let loader: PageLoader
            let call: Call
            do {
                loader = try self.loader()
                if let last = loaded.last?.page {
                    guard let next = try loader.call(following: .next, from: last) else {
                        hasMore = false
                        return
                    }
                    call = next
                } else {
                    call = try loader.call(at: .url(start))
                }
            } catch {
                self.error = error
                return
            }
            if pages.count == loaded.count {
                pages.append(Page(url: loaded.isEmpty ? start : call.rootURL, isLoading: true, isStale: false))
            }
            let number = loaded.count
            pages[number].isLoading = true
            do {
                let page = try await loader.load(call)
                if loaded.contains(where: { $0.page.url == page.url }) {
                    throw HalleyError(
                        code: .paginationCycle, url: page.url,
                        message: "the next link points back to a page already read")
                }
                try await ensureFollowing(page.url)
                let storedAt = await storedAt(page.url)
                loaded.append((page, storedAt))
                pageNumbers[page.url.absoluteString] = number
                pageRows.append(rows(of: page))
                pages[number] = Page(url: page.url, isLoading: false, isStale: false)
                hasMore = page.hasNext
                layOut()
                register(page: number)
                error = nil
            } catch {
                pages[number].isLoading = false
                pages[number].error = error
                if (error as? HalleyError)?.code == .paginationCycle { hasMore = false }
                self.error = error
            }
        }

        /// Asks the server again for every page loaded (conditionally when they have
        /// validators) and lays them out again: items the server added, moved or removed show
        /// so. A page that fails keeps its rows and gets the error.
        ///
        /// ```swift
        /// @MainActor func pullToRefresh(_ orders: ResourceListModel<Order>) async {
        ///     await orders.refresh()
        /// }
        /// struct Order: Decodable, Sendable { let status: String }
        /// ```
        public func refresh() async {
            guard !isLoading else { return }
            isLoading = true
            defer { isLoading = false }
            for number in loaded.indices { await reload(page: number, refetching: true) }
        }

        /// The item at `index`: from the rows when loaded, else through the paging engine's
        /// random access (only the page holding it is fetched when pages are addressable); `nil`
        /// past the end.
        ///
        /// ```swift
        /// @MainActor func jump(_ orders: ResourceListModel<Order>) async throws {
        ///     let hundredth = try await orders.item(at: 99)
        ///     print(hundredth?.status ?? "none")
        /// }
        /// struct Order: Decodable, Sendable { let status: String }
        /// ```
        ///
        /// - Throws: ``HalleyError`` as ``PagedItems/item(at:)``.
        public func item(at index: Int) async throws -> Item? {
            if rows.indices.contains(index), !hasMore || index < rows.count { return rows[index].value }
            return try await manager.items(
                Item.self, from: start, includes: includes, decoder: decoder, options: options
            ).item(at: index)
        }

        /// Stops following the store; the rows stay as they are.
        ///
        /// ```swift
        /// @MainActor func close(_ orders: ResourceListModel<Order>) {
        ///     orders.stop()
        /// }
        /// struct Order: Decodable, Sendable { let status: String }
        /// ```
        public func stop() {
            mailbox?.finish()
            mailbox = nil
            for task in tasks.exchange([]) { task.cancel() }
            ticker.exchange(nil)?.cancel()
        }

        /// A tick's refresh of page `url` failed: the page keeps its rows and gets the error.
        private func tickFailed(_ url: URL, _ error: any Error) {
            if let number = pageNumbers[url.absoluteString], pages.indices.contains(number) {
                pages[number].error = error
            }
            self.error = error
        }

        /// Starts the interval's refreshes while the list follows the store, holding the list
        /// only to read its pages' URLs, never while a request waits.
        private func scheduleRefreshes() {
            ticker.exchange(nil)?.cancel()
            guard let interval = refreshInterval, mailbox != nil else { return }
            guard interval > .zero else {
                error = HalleyError(
                    code: .invalidArgument, url: start,
                    message: "refreshInterval must be longer than zero, and is \(interval); the list does not "
                        + "refresh on an interval")
                return
            }
            // Each tick asks for the loaded pages through the store, holding the list only to
            // read their URLs: the new states reach the rows through the list's follower, and a
            // list released mid-request ends (its deinit cancels this task and the request).
            let (manager, options, start) = (self.manager, self.options, self.start)
            let store = manager.configuration.store ?? ResourceStore(maximumBytes: 0)
            ticker.set(
                Task { [weak self] in
                    while true {
                        do { try await Task.sleep(for: interval) } catch { return }
                        guard let urls = self?.loaded.map(\.page.url) else { return }
                        for url in urls {
                            let handle = ResourceHandle(
                                manager: manager, url: url, options: options, trustRoot: start, store: store)
                            do {
                                _ = try await handle.refresh()
                            } catch is CancellationError {
                                return
                            } catch {
                                self?.tickFailed(url, error)
                            }
                        }
                    }
                })
        }

        // MARK: Pages

        private func loader() throws(HalleyError) -> PageLoader {
            PageLoader(manager: manager, plan: try manager.plan(includes), options: options, fetchesLinkedItems: true)
        }

        private func handle(_ url: URL) -> ResourceHandle {
            let store = manager.configuration.store ?? ResourceStore(maximumBytes: 0)
            return ResourceHandle(manager: manager, url: url, options: options, trustRoot: start, store: store)
        }

        private func storedAt(_ url: URL) async -> Date? {
            await handle(url).current?.storedAt
        }

        /// Loads page `number` again (after a refetch of it when `refetching`), from the store
        /// when fresh, and lays the list out again.
        private func reload(page number: Int, refetching: Bool) async {
            guard loaded.indices.contains(number) else { return }
            let url = loaded[number].page.url
            pages[number].isLoading = true
            do {
                if refetching { _ = try await handle(url).refresh() }
                let loader = try self.loader()
                let page = try await loader.load(
                    try loader.call(at: .url(url), trusting: loaded[number].page.trustRoot))
                let storedAt = await storedAt(url)
                guard loaded.indices.contains(number), loaded[number].page.url == url else { return }
                loaded[number] = (page, storedAt)
                pageRows[number] = rows(of: page)
                pages[number] = Page(url: url, isLoading: false, isStale: false)
                if number == loaded.count - 1 { hasMore = page.hasNext }
                layOut()
                register(page: number)
            } catch {
                guard pages.indices.contains(number) else { return }
                pages[number].isLoading = false
                // A reload the list stopped (or its release) cancelled is no error of the page's.
                guard !(error is CancellationError) else { return }
                pages[number].error = error
                self.error = error
            }
        }

        /// The rows of `page`'s items; an item that does not decode is left out, with its error
        /// on the page.
        private func rows(of page: Halley.Page) -> [(row: Row, json: JSONObject)] {
            var result: [(row: Row, json: JSONObject)] = []
            result.reserveCapacity(page.items.count)
            for (place, item) in page.items.enumerated() {
                guard case .object(let json) = item else { continue }
                let url = Self.ownURL(of: json, on: page.url) ?? Self.placeholder(page.url, place)
                do {
                    let value = try manager.decode(Item.self, from: item, decoder: decoder, plan: page.plan, url: url)
                    result.append((Row(id: url, value: value, isPending: false, isStale: false), json))
                } catch {
                    self.error = error
                }
            }
            return result
        }

        /// The rows of every page in order, each item once (where it came first).
        private func layOut() {
            var laid: [Row] = []
            var placed: [String: (row: Int, page: Int, place: Int)] = [:]
            for (number, list) in pageRows.enumerated() {
                for (place, entry) in list.enumerated() {
                    let key = entry.row.id.absoluteString
                    guard placed[key] == nil else { continue }
                    placed[key] = (laid.count, number, place)
                    laid.append(entry.row)
                }
            }
            rows = laid
            positions = placed
        }

        static func ownURL(of item: JSONObject, on page: URL) -> URL? {
            guard let href = item["_links"]?["self"]?["href"]?.stringValue,
                let url = URLResolution.resolve(href, against: page)
            else { return nil }
            return URLNormalization.normalized(url)
        }

        static func placeholder(_ page: URL, _ place: Int) -> URL {
            URL(string: "#item-\(place)", relativeTo: page)?.absoluteURL ?? page
        }

        // MARK: Following the store

        /// Registers the list's consumer once, for the credential scope its requests carry.
        private func ensureFollowing(_ url: URL) async throws {
            guard mailbox == nil else { return }
            let scope = try await handle(url).stateScope()
            guard mailbox == nil else { return }
            let (manager, options, start) = (self.manager, self.options, self.start)
            let store = manager.configuration.store ?? ResourceStore(maximumBytes: 0)
            let mailbox = ListMailbox(scope: scope) { url in
                URL(string: url).map {
                    ResourceHandle(manager: manager, url: $0, options: options, trustRoot: start, store: store)
                }
            }
            self.mailbox = mailbox
            let follower = Task { [weak self] in
                while let batch = await mailbox.next() {
                    guard let self else { return }
                    self.apply(batch)
                }
            }
            tasks.withLock { $0.append(follower) }
            scheduleRefreshes()
        }

        private func register(page number: Int) {
            guard let mailbox, let store = manager.configuration.store else { return }
            var urls = [loaded[number].page.url.absoluteString]
            urls += pageRows[number].map(\.row.id.absoluteString)
            mailbox.register(in: store, for: urls)
        }

        private func apply(_ batch: ListMailbox.Batch) {
            for (url, event) in batch {
                if let number = pageNumbers[url] {
                    applyPage(event, number: number)
                }
                guard let position = positions[url] else { continue }
                switch event {
                case .updated(let state):
                    update(position, with: state)
                case .stale:
                    mark(position, stale: true)
                case .deleted:
                    // From every page: a copy listed further on must not take its place.
                    for number in pageRows.indices { pageRows[number].removeAll { $0.row.id.absoluteString == url } }
                    layOut()
                }
            }
        }

        /// Runs `work` in a task the model cancels when it is released or stopped.
        private func spawn(_ work: @escaping @MainActor (ResourceListModel) async -> Void) {
            let task = Task { [weak self] in
                guard let self else { return }
                await work(self)
            }
            tasks.withLock { tasks in
                tasks.removeAll { $0.isCancelled }
                tasks.append(task)
            }
        }

        /// A page's change: a new state from the server lays the page out again; stale marks it.
        private func applyPage(_ event: ResourceEvent, number: Int) {
            switch event {
            case .updated(let state):
                // A view composed from an item's change (or an edit) is stored at the same time:
                // its items arrive on their own.
                guard state.storedAt != loaded[number].storedAt else { return }
                if !relayOut(page: number, from: state) {
                    spawn { await $0.reload(page: number, refetching: false) }
                }
                if state.isStale { markPageStale(number) }
            case .stale:
                markPageStale(number)
            case .deleted:
                pages[number].error = HalleyError(
                    code: .http, url: loaded[number].page.url, message: "the page was deleted")
            }
        }

        /// Lays page `number` out again from its new state alone when that is all it takes (no
        /// include list, items embedded): no request, even for a page that is always stale.
        private func relayOut(page number: Int, from state: ResourceState) -> Bool {
            guard includes.isEmpty, !state.isPending else { return false }
            let items = state.resource.embedded.resources(for: LinkRelation(options.collectionItemKey))
            // No embedded items: linked ones, or Spring's own relation name, are the engine's to read.
            guard !items.isEmpty else { return false }
            let old = loaded[number].page
            let page = Halley.Page(
                requestedURL: old.requestedURL, url: old.url, items: items.map { .object($0.json) }, linked: nil,
                plan: old.plan, document: state.resource, links: state.resource.links, trustRoot: old.trustRoot)
            loaded[number] = (page, state.storedAt)
            pageRows[number] = rows(of: page)
            pages[number] = Page(url: page.url, isLoading: false, isStale: state.isStale)
            if number == loaded.count - 1 { hasMore = page.hasNext }
            layOut()
            register(page: number)
            return true
        }

        private func markPageStale(_ number: Int) {
            pages[number].isStale = true
            if refreshesWhenStale, !pages[number].isLoading {
                spawn { await $0.reload(page: number, refetching: true) }
            }
        }

        /// Replaces one row in place: the item's new state, with the relationships the include
        /// list merged into it kept.
        private func update(_ position: (row: Int, page: Int, place: Int), with state: ResourceState) {
            let old = pageRows[position.page][position.place]
            var json = state.resource.json
            for key in (try? manager.plan(includes))?.children.map(\.resultKey) ?? [] {
                if let included = old.json[key] { json[key] = included }
            }
            if let rejected = state.rejectedEdit { error = rejected.error }
            do {
                let value = try manager.decode(
                    Item.self, from: .object(json), decoder: decoder, plan: loaded[position.page].page.plan,
                    url: state.url)
                let row = Row(id: old.row.id, value: value, isPending: state.isPending, isStale: state.isStale)
                pageRows[position.page][position.place] = (row, json)
                rows[position.row] = row
            } catch {
                if !state.isEmbedded { self.error = error }
            }
        }

        private func mark(_ position: (row: Int, page: Int, place: Int), stale: Bool) {
            let old = pageRows[position.page][position.place]
            let row = Row(id: old.row.id, value: old.row.value, isPending: old.row.isPending, isStale: stale)
            pageRows[position.page][position.place] = (row, old.json)
            rows[position.row] = row
        }
    }
#endif
