import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

@Suite struct PagedItemsTests {
    let base = Graph.base
    typealias Item = CollectionItem
    typealias Site = CollectionItem.Site

    /// Five Spring-style pages of two items (n = 0...9); each item links a website.
    private func fivePages(latency: Duration = .zero, metadata: Bool = true, slowPage: Int? = nil) async
        -> InMemoryRequester
    {
        let requester = InMemoryRequester(latency: latency)
        for page in 0..<5 {
            var links: JSONObject = ["first": Graph.link("/items?page=0&size=2")]
            if page < 4 { links["next"] = Graph.link("/items?page=\(page + 1)&size=2") }
            var state: JSONObject = [:]
            if metadata { state["page"] = ["size": 2, "totalElements": 10, "totalPages": 5, "number": .int(page)] }
            let items: [JSONValue] = (0..<2).map { offset in
                let n = page * 2 + offset
                return Graph.resource("/things/\(n)", links: ["website": Graph.link("/sites/\(n)")], ["n": .int(n)])
            }
            await requester.register(
                base + "/items?page=\(page)&size=2",
                json: Graph.resource(
                    "/items?page=\(page)&size=2", links: links,
                    embedded: ["item": .array(items)], state),
                latency: page == slowPage ? .seconds(120) : nil)
        }
        for n in 0..<10 { await requester.register(base + "/sites/\(n)", json: ["host": .string("site\(n)")]) }
        // Like Spring Data REST, a page past the end is an empty page, not a 404.
        await requester.register(base + "/items?page=5&size=2", json: Graph.resource("/items?page=5&size=2"))
        return requester
    }

    private func pagesRequested(_ requester: InMemoryRequester) async -> [Int] {
        await requester.requests.compactMap { request in
            URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?
                .first { $0.name == "page" }?.value.flatMap(Int.init)
        }
    }

    private func items(_ requester: InMemoryRequester, includes: [Include] = []) -> PagedItems<Item> {
        ResourceManager(requester: requester).items(
            Item.self, from: Graph.url("/items?page=0&size=2"), includes: includes)
    }

    @Test func enumeratesEveryPageWithIncludesOnEveryItem() async throws {
        let requester = await fivePages()
        var seen: [Item] = []
        for try await item in items(requester, includes: ["website"]) { seen.append(item) }
        #expect(seen.map(\.n) == Array(0..<10))
        #expect(seen.last?.website == Site(host: "site9"))
        #expect(await pagesRequested(requester) == [0, 1, 2, 3, 4])
    }

    @Test func prefixStopsFetchingAsSoonAsTheConsumerStops() async throws {
        let requester = await fivePages()
        let firstThree = try await items(requester).prefix(3).collected()
        #expect(firstThree.map(\.n) == [0, 1, 2])
        #expect(await pagesRequested(requester) == [0, 1])
    }

    @Test func firstWhereStopsOnThePageThatHasIt() async throws {
        let requester = await fivePages()
        let found = try await items(requester).first { $0.n == 5 }
        #expect(found?.n == 5)
        #expect(await pagesRequested(requester) == [0, 1, 2])
    }

    @Test func indexAccessFetchesOnlyTheCoveringPage() async throws {
        let requester = await fivePages()
        let seventh = try await items(requester).item(at: 7)
        #expect(seventh?.n == 7)
        #expect(await pagesRequested(requester) == [0, 3], "the first page tells the size, then page 3 directly")

        await requester.resetCounts()
        let templated = ResourceManager(requester: requester)
            .items(Item.self, from: base + "/items{?page,size}", variables: ["size": 2])
        #expect(try await templated.item(at: 9)?.n == 9)
        #expect(await pagesRequested(requester) == [4], "a templated start with a size needs no first page")
        await requester.resetCounts()
        #expect(try await templated.item(at: 10) == nil)
        #expect(await pagesRequested(requester) == [5])

        await requester.resetCounts()
        #expect(try await items(requester).item(at: 10) == nil)
        #expect(await pagesRequested(requester) == [0], "the metadata says there are 10 items")
    }

    @Test func rangeAccessFetchesOnlyThePagesThatCoverIt() async throws {
        let requester = await fivePages()
        let slice = try await items(requester).items(in: 3..<7)
        #expect(slice.map(\.n) == [3, 4, 5, 6])
        #expect(await pagesRequested(requester) == [0, 1, 2, 3])

        await requester.resetCounts()
        let templated = ResourceManager(requester: requester)
            .items(Item.self, from: base + "/items{?page,size}", variables: ["size": 2])
        #expect(try await templated.items(in: 5..<8).map(\.n) == [5, 6, 7])
        #expect(await pagesRequested(requester) == [2, 3])
    }

    @Test func withoutPageMetadataRandomAccessWalksNext() async throws {
        let requester = await fivePages(metadata: false)
        #expect(try await items(requester).item(at: 5)?.n == 5)
        #expect(await pagesRequested(requester) == [0, 1, 2])
    }

    @Test func aNextCycleIsATypedErrorNotALoop() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            base + "/a", json: Graph.resource("/a", links: ["next": Graph.link("/b")], embedded: ["item": [["n": 1]]]))
        await requester.register(
            base + "/b", json: Graph.resource("/b", links: ["next": Graph.link("/a")], embedded: ["item": [["n": 2]]]))
        var seen: [Int] = []
        await #expect {
            for try await item in ResourceManager(requester: requester).items(Item.self, from: Graph.url("/a")) {
                seen.append(item.n)
            }
        } throws: { ($0 as? HalleyError)?.code == .paginationCycle }
        #expect(seen == [1, 2])
        #expect(await requester.requestCount == 2)
        await #expect {
            try await ResourceManager(requester: requester).items(Item.self, from: Graph.url("/a")).item(at: 5)
        } throws: { ($0 as? HalleyError)?.code == .paginationCycle }
    }

    @Test func anEmptyCollectionYieldsNothing() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            base + "/empty",
            json: Graph.resource("/empty", ["page": ["size": 20, "totalElements": 0, "totalPages": 0, "number": 0]]))
        var count = 0
        for try await _ in ResourceManager(requester: requester).items(Item.self, from: Graph.url("/empty")) {
            count += 1
        }
        #expect(count == 0)
        #expect(await requester.requestCount == 1)
    }

    @Test func limitsAndStopPredicates() async throws {
        let requester = await fivePages()
        #expect(try await items(requester).limited(toItems: 3).collect().map(\.n) == [0, 1, 2])
        #expect(await pagesRequested(requester) == [0, 1])

        await requester.resetCounts()
        #expect(try await items(requester).limited(toPages: 2).collect().count == 4)
        #expect(await pagesRequested(requester) == [0, 1])

        await requester.resetCounts()
        let stopped = items(requester).stop { $0.metadata?.number == 2 }
        #expect(try await stopped.collect().map(\.n) == [0, 1, 2, 3, 4, 5])
        #expect(await pagesRequested(requester) == [0, 1, 2])

        await requester.resetCounts()
        var guarded = items(requester)
        guarded.maxPages = 2
        await #expect {
            _ = try await guarded.collect()
        } throws: { ($0 as? HalleyError)?.code == .limitExceeded }
    }

    @Test func prefetchingFetchesTheNextPageWhileTheCurrentOneIsConsumed() async throws {
        let requester = await fivePages(latency: .milliseconds(20))
        var iterator = items(requester).prefetching().makeAsyncIterator()
        _ = try await iterator.next()  // page 0 arrives; page 1 starts in the background
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(5)
        while await pagesRequested(requester).count < 2, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(await pagesRequested(requester) == [0, 1], "page 1 was requested before the consumer asked for it")
        var rest: [Int] = []
        while let item = try await iterator.next() { rest.append(item.n) }
        #expect(rest == Array(1..<10))
        #expect(await pagesRequested(requester) == [0, 1, 2, 3, 4], "prefetched pages are not fetched twice")
    }

    @Test func cancellationMidEnumerationStopsPromptly() async throws {
        let requester = await fivePages(slowPage: 1)
        let sequence = items(requester)
        let task = Task {
            var count = 0
            for try await _ in sequence { count += 1 }
            return count
        }
        // Cancel once page 1 is in flight, however slow the machine is.
        while await pagesRequested(requester).count < 2 { try await Task.sleep(for: .milliseconds(5)) }
        let clock = ContinuousClock()
        let start = clock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.now - start < .seconds(60), "the 120 s page was not waited for")
        #expect(await pagesRequested(requester) == [0, 1])
    }

    @Test func plainNextLinkedCollectionsWithLinkedItems() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            base + "/p1", json: Graph.resource("/p1", links: ["next": Graph.link("/p2"), "item": [Graph.link("/i/1")]]))
        await requester.register(
            base + "/p2", json: Graph.resource("/p2", links: ["item": [Graph.link("/i/2"), Graph.link("/i/3")]]))
        for n in 1...3 { await requester.register(base + "/i/\(n)", json: ["n": .int(n)]) }
        let all = try await ResourceManager(requester: requester).items(Item.self, from: Graph.url("/p1")).collect()
        #expect(all.map(\.n) == [1, 2, 3])
    }
}
