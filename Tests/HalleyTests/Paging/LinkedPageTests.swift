import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Collections whose pages hold links to their items (`_links.item`, nothing embedded): the
/// items are fetched as the consumer reaches them, random access fetches only what it
/// returns, and `maxRequests` bounds each fetch rather than what a page links to.
@Suite struct LinkedPageTests {
    let base = Graph.base
    typealias Item = CollectionItem
    typealias Site = CollectionItem.Site
    typealias Owner = CollectionItem.Owner

    /// `/linked?page=<page>`: a page linking items `first ..< first + count` as `/i/<n>` (no
    /// `_embedded`), with a `next` link when `hasNext`. Each item links `website` (`/sites/<n>`)
    /// and `owner` (`/owners/<n % owners>`, whose `website` is `/owner-sites/<o>`).
    private func linkedPages(
        _ pages: Int = 1, itemsPerPage: Int = 1_000, owners: Int = 1, latency: Duration = .zero
    ) async -> InMemoryRequester {
        let requester = InMemoryRequester(latency: latency)
        for page in 0..<pages {
            let first = page * itemsPerPage
            var links: JSONObject = ["item": .array((first..<(first + itemsPerPage)).map { Graph.link("/i/\($0)") })]
            if page + 1 < pages { links["next"] = Graph.link("/linked?page=\(page + 1)") }
            await requester.register(
                base + "/linked?page=\(page)", json: Graph.resource("/linked?page=\(page)", links: links))
            for n in first..<(first + itemsPerPage) {
                await requester.register(
                    base + "/i/\(n)",
                    json: Graph.resource(
                        "/i/\(n)",
                        links: ["website": Graph.link("/sites/\(n)"), "owner": Graph.link("/owners/\(n % owners)")],
                        ["n": .int(n)]))
                await requester.register(base + "/sites/\(n)", json: ["host": .string("site\(n)")])
            }
        }
        for owner in 0..<owners {
            await requester.register(
                base + "/owners/\(owner)",
                json: Graph.resource(
                    "/owners/\(owner)", links: ["website": Graph.link("/owner-sites/\(owner)")],
                    ["name": .string("owner\(owner)")]))
            await requester.register(base + "/owner-sites/\(owner)", json: ["host": .string("owner-site\(owner)")])
        }
        return requester
    }

    private func items(
        _ requester: InMemoryRequester, includes: [Include] = [], options: CallOptions = CallOptions()
    ) -> PagedItems<Item> {
        ResourceManager(requester: requester).items(
            Item.self, from: Graph.url("/linked?page=0"), includes: includes, options: options)
    }

    /// The item numbers requested, in arrival order.
    private func itemsRequested(_ requester: InMemoryRequester) async -> [Int] {
        await requester.requestedURLs.compactMap { url in
            url.hasPrefix(base + "/i/") ? Int(url.dropFirst((base + "/i/").count)) : nil
        }
    }

    private func pagesRequested(_ requester: InMemoryRequester) async -> Int {
        await requester.requestedURLs.filter { $0.hasPrefix(base + "/linked?") }.count
    }

    /// Waits until the requester has seen `count` requests (the fetches ahead of the consumer
    /// run in their own tasks), for at most ten seconds.
    private func waitForRequests(_ count: Int, on requester: InMemoryRequester) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while await requester.requestCount < count, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    // MARK: Sequential reading

    @Test func prefixFetchesOnlyTheItemsItReads() async throws {
        let requester = await linkedPages()
        var options = CallOptions()
        options.maxConcurrency = 1  // no window ahead: exactly what is read
        let five = try await items(requester, options: options).prefix(5).collected()
        #expect(five.map(\.n) == [0, 1, 2, 3, 4])
        #expect(await requester.requestCount == 6, "one page and five items, not the 1,000 the page links")
        #expect(await itemsRequested(requester) == [0, 1, 2, 3, 4])

        await requester.resetCounts()
        let found = try await items(requester, options: options).first { $0.n == 2 }
        #expect(found?.n == 2)
        #expect(await requester.requestCount == 4)
    }

    @Test func fetchesRunAWindowOfTheConcurrencyLimitAheadOfTheConsumer() async throws {
        let requester = await linkedPages(latency: .milliseconds(5))
        var iterator = items(requester).makeAsyncIterator()  // maxConcurrency 8
        var read: [Int] = []
        for _ in 0..<5 { read.append(try #require(try await iterator.next()).n) }
        #expect(read == [0, 1, 2, 3, 4])
        // Reading item 4 started items up to 4 + 8 - 1 = 11, and nothing further.
        try await waitForRequests(13, on: requester)
        try await Task.sleep(for: .milliseconds(50))
        #expect(await requester.requestCount == 13, "1 page + items 0...11")
        #expect(await Set(itemsRequested(requester)) == Set(0..<12))
        #expect(await requester.maxInFlight <= 8, "never more item fetches in flight than maxConcurrency")
        // Still in order, and the items already fetched are not fetched again.
        #expect(try await iterator.next()?.n == 5)
        try await waitForRequests(14, on: requester)
        #expect(await itemsRequested(requester).count == 13)
        #expect(await Set(itemsRequested(requester)).count == 13)
    }

    @Test func anItemLimitStopsTheFetchesAheadToo() async throws {
        let requester = await linkedPages()
        let three = try await items(requester).limited(toItems: 3).collect()
        #expect(three.map(\.n) == [0, 1, 2])
        try await Task.sleep(for: .milliseconds(50))
        #expect(await requester.requestCount == 4, "the window never passes the limit")
    }

    @Test func aFailingItemEndsTheSequenceThereWithItsURL() async throws {
        let requester = InMemoryRequester()
        let links = (0..<10).map { Graph.link("/i/\($0)") }
        await requester.register(
            base + "/linked?page=0", json: Graph.resource("/linked?page=0", links: ["item": .array(links)]))
        for n in [0, 1, 3, 4] { await requester.register(base + "/i/\(n)", json: ["n": .int(n)]) }
        await requester.register(base + "/i/2", json: ["n": "two"])  // not an Int
        var seen: [Int] = []
        var iterator = items(requester).makeAsyncIterator()
        await #expect {
            while let item = try await iterator.next() { seen.append(item.n) }
        } throws: { error in
            guard let error = error as? HalleyError else { return false }
            return error.code == .decoding && error.url == Graph.url("/i/2") && error.message.contains("$.n")
        }
        #expect(seen == [0, 1])
        #expect(try await iterator.next() == nil, "the sequence ends at the failure")

        await requester.register(base + "/i/2", json: ["n": 2])  // now /i/5 is the first one missing
        var iteratorPast404 = items(requester).makeAsyncIterator()
        for n in 0..<5 { #expect(try await iteratorPast404.next()?.n == n) }
        await #expect {
            while try await iteratorPast404.next() != nil {}
        } throws: { error in
            (error as? HalleyError)?.code == .http && (error as? HalleyError)?.url == Graph.url("/i/5")
        }
    }

    @Test func credentialsGoWhereTheyWentWhenThePageFetchedItsItems() async throws {
        let requester = InMemoryRequester()
        let links = [Graph.link("/i/0"), Graph.link("https://other.example.com/i/1")]
        await requester.register(
            base + "/linked?page=0", json: Graph.resource("/linked?page=0", links: ["item": .array(links)]))
        await requester.register(base + "/i/0", json: ["n": 0])
        await requester.register("https://other.example.com/i/1", json: ["n": 1])
        var options = CallOptions()
        options.headers = ["Authorization": "Bearer secret"]
        #expect(try await items(requester, options: options).collect().map(\.n) == [0, 1])
        let requests = await requester.requests
        let sameOrigin = try #require(requests.first { $0.url == Graph.url("/i/0") })
        let otherOrigin = try #require(requests.first { $0.url.host == "other.example.com" })
        #expect(sameOrigin.headers["Authorization"] == "Bearer secret")
        #expect(otherOrigin.headers["Authorization"] == nil, "another origin than the page's")
    }

    /// `Int.max` reads as "no limit": the window ahead of the reader is computed from it.
    @Test func enumeratingWithTheLargestConcurrencyLimitSucceeds() async throws {
        let requester = await linkedPages(itemsPerPage: 20)
        var options = CallOptions()
        options.maxConcurrency = .max
        #expect(try await items(requester, options: options).collect().map(\.n) == Array(0..<20))
    }

    @Test func enumeratingEveryItemOfAThousandLinkPageWithDefaultSettingsSucceeds() async throws {
        let requester = await linkedPages()
        let all = try await items(requester).collect()
        #expect(all.map(\.n) == Array(0..<1_000))
        #expect(await requester.requestCount == 1_001, "the page, then each item once")
        #expect(await itemsRequested(requester).sorted() == Array(0..<1_000))
    }

    @Test func breakingOutOfTheLoopCancelsTheFetchesAhead() async throws {
        let requester = InMemoryRequester()
        let cancelled = LockedValue(Set<Int>())
        let links = (0..<100).map { Graph.link("/i/\($0)") }
        await requester.register(
            base + "/linked?page=0", json: Graph.resource("/linked?page=0", links: ["item": .array(links)]))
        await requester.register(base + "/i/0", json: ["n": 0])
        for n in 1..<100 {
            await requester.register(base + "/i/\(n)") { request in
                do {
                    try await Task.sleep(for: .seconds(120))
                } catch {
                    cancelled.withLock { _ = $0.insert(n) }
                    throw error
                }
                return ResourceResponse(status: 200, headers: [:], url: request.url, body: Data("{\"n\":\(n)}".utf8))
            }
        }
        let clock = ContinuousClock()
        for try await item in items(requester) {
            #expect(item.n == 0)
            // Holding item 0, the sequence fetches the next seven ahead; once they have reached
            // the server (a loaded machine may take a while to start them), leave the loop.
            let started = clock.now + .seconds(10)
            while await itemsRequested(requester).count < 8, clock.now < started {
                try await Task.sleep(for: .milliseconds(5))
            }
            break
        }
        // Items 1...7 were in flight ahead of the consumer; leaving the loop cancels them.
        let deadline = clock.now + .seconds(10)
        while cancelled.get().count < 7, clock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(cancelled.get() == Set(1...7))
        #expect(await itemsRequested(requester).sorted() == Array(0...7))
    }

    // MARK: Random access

    @Test func randomAccessFetchesOnlyTheItemsItReturns() async throws {
        let requester = await linkedPages(2)
        #expect(try await items(requester).item(at: 500)?.n == 500)
        #expect(await requester.requestCount == 2, "the page, then item 500")
        #expect(await itemsRequested(requester) == [500])

        await requester.resetCounts()
        let slice = try await items(requester).items(in: 990..<1_010)
        #expect(slice.map(\.n) == Array(990..<1_010))
        #expect(await pagesRequested(requester) == 2)
        #expect(await itemsRequested(requester).sorted() == Array(990..<1_010))
        #expect(await requester.requestCount == 22)

        await requester.resetCounts()
        #expect(try await items(requester).item(at: 2_000) == nil)
        #expect(await requester.requestCount == 2, "both pages, no item")
    }

    // MARK: Limits and includes

    @Test func maxRequestsBoundsEachFetchNotWhatThePageLinks() async throws {
        let requester = await linkedPages(itemsPerPage: 10)
        var options = CallOptions()
        options.maxRequests = 2  // an item and its website; the page links ten of each
        let all = try await items(requester, includes: ["website"], options: options).collect()
        #expect(all.map(\.n) == Array(0..<10))
        #expect(all.map(\.website) == (0..<10).map { Site(host: "site\($0)") })
        #expect(await requester.requestCount == 21)

        options.maxRequests = 1  // an item alone: its website would be a second request
        await #expect {
            _ = try await items(requester, includes: ["website"], options: options).collect()
        } throws: { error in
            guard let error = error as? HalleyError else { return false }
            return error.code == .limitExceeded && error.message.contains("more than 1 request")
        }
    }

    @Test func includesAreMergedIntoEveryFetchedItemAndSharedOnesFetchedOncePerPage() async throws {
        let requester = await linkedPages(itemsPerPage: 10, owners: 2)
        let all = try await items(requester, includes: ["website", "owner.website"]).collect()
        #expect(all.map(\.n) == Array(0..<10))
        for item in all {
            #expect(item.website == Site(host: "site\(item.n)"))
            #expect(
                item.owner
                    == Owner(name: "owner\(item.n % 2)", website: Site(host: "owner-site\(item.n % 2)")))
        }
        // The page, 10 items, 10 websites, and the 2 owners with their websites once each.
        #expect(await requester.requestCount == 25)
        #expect(await requester.count(for: base + "/owners/0") == 1)

        await requester.resetCounts()
        let picked = try await items(requester, includes: ["owner.website"]).items(in: 3..<5)
        #expect(picked.map(\.owner?.website?.host) == ["owner-site1", "owner-site0"])
        #expect(await requester.requestCount == 7, "the page, items 3 and 4, their owners and the owners' websites")
    }
}
