#if canImport(Observation)
    import Foundation
    import HalleyTestSupport
    import Testing

    @testable import Halley

    /// The live paged list: pages through `next`, items that update in place, disappear when
    /// deleted, show once, and show optimistic edits pending.
    @MainActor @Suite struct ResourceListModelTests {
        struct Order: Decodable, Sendable, Equatable {
            let number: Int
            let status: String
        }

        func eventually(_ condition: @MainActor () -> Bool) async -> Bool {
            for _ in 0..<2_000 where !condition() { try? await Task.sleep(for: .milliseconds(1)) }
            return condition()
        }

        static func order(_ number: Int, _ status: String = "open") -> JSONValue {
            Graph.resource("/orders/\(number)", ["number": .int(number), "status": .string(status)])
        }

        /// `pages` pages of `size` orders each at /orders?page=N, linked by `next`; `numbers`
        /// overrides which orders a page lists.
        static func serveOrders(
            _ api: ScriptedAPI, pages: Int, size: Int, numbers: [Int: [Int]] = [:], missing: Set<Int> = []
        ) async {
            for page in 0..<pages where !missing.contains(page) {
                let listed = numbers[page] ?? Array((page * size + 1)...((page + 1) * size))
                var links: JSONObject = [:]
                if page + 1 < pages { links["next"] = Graph.link("/orders?page=\(page + 1)") }
                await api.serve(
                    "/orders?page=\(page)",
                    Graph.resource(
                        "/orders?page=\(page)", links: links, embedded: ["item": .array(listed.map { order($0) })]))
            }
            for number in 1...(pages * size) { await api.answerWrites("/orders/\(number)") }
        }

        func list(_ manager: ResourceManager) -> ResourceListModel<Order> {
            ResourceListModel(manager, from: Graph.url("/orders?page=0"), as: Order.self)
        }

        /// The list once it has asked for its first two pages.
        func listOfTwoPages(_ manager: ResourceManager) async -> ResourceListModel<Order> {
            let orders = list(manager)
            await orders.loadMore()
            await orders.loadMore()
            return orders
        }

        @Test func pagesLoadOneAtATimeUntilThereIsNoNext() async throws {
            let api = ScriptedAPI()
            await Self.serveOrders(api, pages: 3, size: 5)
            let manager = await stateManager(api)
            let orders = list(manager)
            #expect(orders.hasMore && orders.rows.isEmpty)
            await orders.loadMore()
            #expect(orders.items.map(\.number) == Array(1...5))
            #expect(orders.hasMore && !orders.isLoading)
            await orders.loadMore()
            await orders.loadMore()
            #expect(orders.items.map(\.number) == Array(1...15))
            #expect(!orders.hasMore)
            #expect(orders.pages.count == 3 && orders.pages.allSatisfy { $0.error == nil && !$0.isLoading })
            let requests = await api.requester.requestCount
            await orders.loadMore()
            #expect(await api.requester.requestCount == requests, "no page after the last")
            #expect(try await orders.item(at: 7)?.number == 8)
        }

        @Test func anEditThroughAnyHandleUpdatesTheRowInPlaceWithNoRefetch() async throws {
            let api = ScriptedAPI()
            await Self.serveOrders(api, pages: 2, size: 5)
            await api.answerWrites("/orders/7", withNewState: ["number": 7, "status": "paid"])
            let manager = await stateManager(api)
            let orders = await listOfTwoPages(manager)
            let requests = await api.requester.requestCount
            _ = try await manager.resource(at: Graph.url("/orders/7")).put(.json(["status": "paid"]))
            #expect(await eventually { orders.rows[6].value.status == "paid" })
            #expect(orders.rows[6].id == Graph.url("/orders/7") && orders.rows.count == 10)
            #expect(await api.requester.requestCount == requests + 1, "the PUT alone: no page was fetched again")
        }

        @Test func aDeletedItemDisappears() async throws {
            let api = ScriptedAPI()
            await Self.serveOrders(api, pages: 2, size: 5)
            let manager = await stateManager(api)
            let orders = await listOfTwoPages(manager)
            _ = try await manager.resource(at: Graph.url("/orders/3")).delete()
            #expect(await eventually { orders.rows.count == 9 })
            #expect(!orders.items.map(\.number).contains(3))
            #expect(orders.items.map(\.number) == [1, 2, 4, 5, 6, 7, 8, 9, 10])
        }

        @Test func anItemListedOnTwoPagesShowsOnceWhereItCameFirst() async throws {
            let api = ScriptedAPI()
            await Self.serveOrders(api, pages: 2, size: 3, numbers: [0: [1, 2, 3], 1: [3, 4, 5]])
            let manager = await stateManager(api)
            let orders = await listOfTwoPages(manager)
            #expect(orders.items.map(\.number) == [1, 2, 3, 4, 5])
            _ = try await manager.resource(at: Graph.url("/orders/3")).delete()
            #expect(await eventually { orders.items.map(\.number) == [1, 2, 4, 5] }, "and gone once")
        }

        @Test func aPageThatIsMissingKeepsTheRowsAndItsErrorAndCanBeAskedAgain() async throws {
            let api = ScriptedAPI()
            await Self.serveOrders(api, pages: 3, size: 2, missing: [1])
            let manager = await stateManager(api)
            let orders = await listOfTwoPages(manager)
            #expect(orders.items.map(\.number) == [1, 2])
            #expect(!orders.isLoading && orders.hasMore)
            #expect((orders.pages.last?.error as? HalleyError)?.httpError?.status == 404)
            #expect(orders.pages.last?.isLoading == false, "no stuck spinner")
            await Self.serveOrders(api, pages: 3, size: 2)
            await orders.loadMore()
            #expect(orders.items.map(\.number) == [1, 2, 3, 4])
            #expect(orders.pages.count == 2 && orders.pages[1].error == nil)
        }

        @Test func aRefreshLaysOutWhatTheServerNowLists() async throws {
            let api = ScriptedAPI()
            await Self.serveOrders(api, pages: 2, size: 3)
            let manager = await stateManager(api)
            let orders = await listOfTwoPages(manager)
            await Self.serveOrders(api, pages: 2, size: 3, numbers: [0: [1, 3, 4], 1: [4, 5, 6]])
            await orders.refresh()
            #expect(orders.items.map(\.number) == [1, 3, 4, 5, 6])
        }

        @Test func anOptimisticEditShowsPendingInTheListAndARejectionRestoresIt() async throws {
            let api = HeldWritesAPI()
            await api.serve(
                "/orders", Graph.resource("/orders", embedded: ["item": [Self.order(1), Self.order(2)]]))
            for number in 1...2 { await api.serve("/orders/\(number)", Self.order(number)) }
            var configuration = ResourceManager.Configuration()
            configuration.store = ResourceStore()
            let manager = ResourceManager(requester: api.requester, configuration: configuration)
            let orders = ResourceListModel(manager, from: Graph.url("/orders"), as: Order.self)
            await orders.loadMore()
            let write = Task {
                try await manager.resource(at: Graph.url("/orders/2")).patch(
                    .json(["status": "paid"]), expecting: .mergePatch)
            }
            await api.waitForWrites(1)
            #expect(await eventually { orders.rows[1].value.status == "paid" && orders.rows[1].isPending })
            await api.answerNext(.init(status: 409))
            _ = try? await write.value
            #expect(await eventually { orders.rows[1].value.status == "open" && !orders.rows[1].isPending })
            #expect((orders.error as? HalleyError)?.httpError?.status == 409)
        }

        @Test func releasingTheListUnregistersIt() async throws {
            let api = ScriptedAPI()
            await Self.serveOrders(api, pages: 2, size: 3)
            let store = ResourceStore()
            let manager = await stateManager(api, store: store)
            var orders: ResourceListModel<Order>? = list(manager)
            await orders?.loadMore()
            await orders?.loadMore()
            #expect(store.subscriberCount > 0)
            orders = nil
            #expect(await eventually { store.subscriberCount == 0 }, "a released list follows nothing")
        }

        @Test func aRefreshIntervalAsksForEveryLoadedPageAgainWhileTheListFollows() async throws {
            let api = ScriptedAPI()
            await Self.serveOrders(api, pages: 2, size: 3)
            let manager = await stateManager(api)
            let orders = list(manager)
            orders.refreshInterval = .milliseconds(5)
            await orders.loadMore()
            await orders.loadMore()
            func gets(_ page: Int) async -> Int {
                await api.requester.requests.filter { $0.url == Graph.url("/orders?page=\(page)") }.count
            }
            let (first, second) = (await gets(0), await gets(1))
            await Self.serveOrders(api, pages: 2, size: 3, numbers: [1: [4, 5, 6, 7]])
            var asked = false
            for _ in 0..<2_000 {
                if await gets(0) >= first + 2, await gets(1) >= second + 2 {
                    asked = true
                    break
                }
                try? await Task.sleep(for: .milliseconds(1))
            }
            #expect(asked, "both pages asked again, more than once")
            #expect(await eventually { orders.items.map(\.number) == [1, 2, 3, 4, 5, 6, 7] })
            orders.stop()
            try? await Task.sleep(for: .milliseconds(20))
            let stopped = await api.requester.requestCount
            try? await Task.sleep(for: .milliseconds(50))
            #expect(await api.requester.requestCount == stopped, "stopped: no more ticks")
            #expect(orders.error == nil)
        }

        @Test func aRefreshIntervalThatIsNotPositiveIsATypedErrorNotABusyLoop() async throws {
            for interval in [Duration.zero, .milliseconds(-5)] {
                let api = ScriptedAPI()
                await Self.serveOrders(api, pages: 1, size: 2)
                let manager = await stateManager(api)
                let orders = list(manager)
                await orders.loadMore()
                let requests = await api.requester.requestCount
                orders.refreshInterval = interval
                let error = try #require(orders.error as? HalleyError)
                #expect(error.code == .invalidArgument)
                #expect(error.message.contains("refreshInterval must be longer than zero"))
                try? await Task.sleep(for: .milliseconds(30))
                #expect(await api.requester.requestCount == requests)
                orders.stop()
            }
        }

        @Test func aListReleasedWhileItsIntervalsRequestWaitsCancelsItAndEnds() async throws {
            let gate = GatedRequester()
            let page = Graph.url("/orders?page=0").absoluteString
            await gate.register(
                page,
                json: Graph.resource("/orders?page=0", embedded: ["item": [Self.order(1), Self.order(2)]]))
            var configuration = ResourceManager.Configuration()
            let store = ResourceStore()
            configuration.store = store
            let manager = ResourceManager(requester: gate, configuration: configuration)
            var orders: ResourceListModel<Order>? = list(manager)
            weak let released = orders
            let loading = Task { await orders?.loadMore() }
            _ = try await gate.waitForParked(1)
            await gate.release()
            await loading.value
            #expect(orders?.items.map(\.number) == [1, 2])
            orders?.refreshInterval = .milliseconds(5)
            _ = try await gate.waitForParked(1)
            orders = nil
            #expect(await eventually { released == nil }, "the tick's request does not keep the list")
            #expect(await gate.waitUntilNothingWaits(), "the request in flight was cancelled")
            let arrivals = await gate.arrivals.count
            try? await Task.sleep(for: .milliseconds(30))
            #expect(await gate.arrivals.count == arrivals, "and nothing more is asked")
            #expect(await eventually { store.subscriberCount == 0 })
        }

        /// Answers the parked requests whose URL contains `part` (off the main actor, where the
        /// predicate is made).
        nonisolated static func release(_ gate: GatedRequester, containing part: String) async {
            await gate.release { $0.contains(part) }
        }

        @Test func anEditWhileTheListIsPagingShowsPendingAndThePageArrivesAroundIt() async throws {
            let gate = GatedRequester()
            await gate.register(
                Graph.url("/orders?page=0").absoluteString,
                json: Graph.resource(
                    "/orders?page=0", links: ["next": Graph.link("/orders?page=1")],
                    embedded: ["item": [Self.order(1), Self.order(2)]]))
            await gate.register(
                Graph.url("/orders?page=1").absoluteString,
                json: Graph.resource("/orders?page=1", embedded: ["item": [Self.order(3), Self.order(4)]]))
            await gate.register(Graph.url("/orders/2").absoluteString, json: Self.order(2, "paid"))
            var configuration = ResourceManager.Configuration()
            configuration.store = ResourceStore()
            let manager = ResourceManager(requester: gate, configuration: configuration)
            let orders = list(manager)
            let first = Task { await orders.loadMore() }
            _ = try await gate.waitForParked(1)
            await gate.release()
            await first.value
            let paging = Task { await orders.loadMore() }
            _ = try await gate.waitForParked(1)
            let write = Task {
                try await manager.resource(at: Graph.url("/orders/2")).patch(
                    .json(["status": "paid"]), expecting: .mergePatch)
            }
            _ = try await gate.waitForParked(2)
            #expect(await eventually { orders.rows[1].value.status == "paid" && orders.rows[1].isPending })
            #expect(orders.isLoading, "the second page is still on its way")
            await Self.release(gate, containing: "page=1")
            await paging.value
            #expect(orders.items.map(\.number) == [1, 2, 3, 4])
            #expect(orders.rows[1].value.status == "paid" && orders.rows[1].isPending, "still the edit's")
            await gate.release()
            _ = try await write.value
            #expect(await eventually { !orders.rows[1].isPending })
            #expect(orders.rows[1].value.status == "paid")
            #expect(orders.items.map(\.number) == [1, 2, 3, 4], "each item once")
            #expect(orders.error == nil && orders.pages.allSatisfy { $0.error == nil && !$0.isLoading })
        }
    }
#endif
