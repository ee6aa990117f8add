import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Every way of turning pages follows `next` the same way: through the relation resolver (a
/// deprecated link says so) and with the credentials of the enumeration's start, whatever
/// origin a later page or item is on.
@Suite struct PagingRulesTests {
    static let evil = "https://evil.example.net"
    struct Numbered: Decodable, Equatable { let n: Int }

    /// Page 1 on the API links item 1 and a `next` page on another origin, which links item 2
    /// (on that origin too). Page 1 (`/p1`) also carries Spring metadata and a `first` link on
    /// the other origin, so addressing page 2 by number builds its URL there; `/w1` is the
    /// same page without them.
    private func api(nextLink: JSONObject = [:]) async -> InMemoryRequester {
        let requester = InMemoryRequester()
        let metadata: JSONObject = ["size": 1, "totalElements": 2, "totalPages": 2, "number": 0]
        await requester.register(
            Graph.base + "/p1",
            json: Graph.resource(
                "/p1",
                links: [
                    "item": [Graph.link("/items/1")], "next": Graph.link(Self.evil + "/p2", nextLink),
                    "first": Graph.link(Self.evil + "/p?page=0"),
                ], ["page": .object(metadata)]))
        await requester.register(Graph.base + "/items/1", json: Graph.resource("/items/1", ["n": 1]))
        // The same first page without metadata or a `first` link: pages cannot be addressed.
        await requester.register(
            Graph.base + "/w1",
            json: Graph.resource(
                "/w1", links: ["item": [Graph.link("/items/1")], "next": Graph.link(Self.evil + "/p2", nextLink)]))
        var second = metadata
        second["number"] = 1
        for path in ["/p2", "/p?page=1"] {
            await requester.register(
                Self.evil + path,
                json: Graph.resource(path, links: ["item": [Graph.link("/items/2")]], ["page": .object(second)]))
        }
        await requester.register(Self.evil + "/items/2", json: Graph.resource("/items/2", ["n": 2]))
        return requester
    }

    private func manager(_ requester: InMemoryRequester, log: EventLog? = nil) -> ResourceManager {
        var configuration = ResourceManager.Configuration()
        configuration.headers = ["Authorization": "Bearer secret"]
        configuration.observer = log?.observer
        return ResourceManager(requester: requester, configuration: configuration)
    }

    enum Path: String, CaseIterable {
        case items, prefetching, nextPage, chainPage, randomAccessWalk, randomAccessByNumber
    }

    /// Reads items 1 and 2 by `path`.
    private func read(by path: Path, _ manager: ResourceManager) async throws -> [Numbered] {
        let start = Graph.url("/p1")
        switch path {
        case .items:
            return try await manager.items(Numbered.self, from: start).collect()
        case .prefetching:
            return try await manager.items(Numbered.self, from: start).prefetching().collect()
        case .nextPage:
            let first = try await manager.requestPage(HalleyRequest<Numbered>(url: start))
            let second = try #require(try await manager.nextPage(of: first))
            return first.items + second.items
        case .chainPage:
            let first = try await manager.entry(start).page(of: Numbered.self)
            let second = try #require(try await manager.nextPage(of: first))
            return first.items + second.items
        case .randomAccessWalk:
            // Without metadata the page size is unknown: the walk follows `next`.
            return try await manager.items(Numbered.self, from: Graph.url("/w1")).items(in: 0..<2)
        case .randomAccessByNumber:
            return try await manager.items(Numbered.self, from: start).item(at: 1).map { [$0] } ?? []
        }
    }

    @Test(arguments: Path.allCases)
    func laterPagesAndTheirItemsOnAnotherOriginGetNoCredentials(_ path: Path) async throws {
        let requester = await api()
        let items = try await read(by: path, manager(requester))
        #expect(items.last == Numbered(n: 2), "\(path): \(items)")
        let requests = await requester.requests
        let elsewhere = requests.filter { $0.url.host == "evil.example.net" }
        #expect(!elsewhere.isEmpty, "\(path): the other origin was asked")
        for request in elsewhere {
            #expect(request.headers["Authorization"] == nil, "\(path): \(request.url) received the credential")
        }
        #expect(
            requests.filter { $0.url.host == "api.example.com" }.allSatisfy {
                $0.headers["Authorization"] == "Bearer secret"
            }, "\(path): the start's origin keeps its credential")
    }

    @Test(arguments: [Path.items, .prefetching, .nextPage, .chainPage, .randomAccessWalk])
    func aDeprecatedNextLinkReportsThatItWasFollowed(_ path: Path) async throws {
        let deprecation = "https://api.example.com/deprecations/next"
        let requester = await api(nextLink: ["deprecation": .string(deprecation)])
        let log = EventLog()
        _ = try await read(by: path, manager(requester, log: log))
        let followed = log.all.compactMap { event -> URL? in
            if case .deprecatedLinkFollowed(_, let url, let notice) = event, notice == deprecation {
                return url
            }
            return nil
        }
        #expect(followed == [URL(string: Self.evil + "/p2")], "\(path)")
    }

    @Test func aFormSentToADeprecatedSelfLinkReportsThatItWasFollowed() async throws {
        let requester = InMemoryRequester()
        await requester.register(Graph.base + "/old") { request in
            ResourceResponse(status: 204, url: request.url, body: Data())
        }
        let document = try HALResource(
            json: [
                "_links": ["self": ["href": "/old", "deprecation": "https://api.example.com/deprecations/old"]],
                "_templates": ["default": ["method": "POST"]],
            ], url: Graph.url("/doc"))
        let log = EventLog()
        let response = try await manager(requester, log: log).submit(document.forms.default!, of: document)
        #expect(response.status == 204)
        #expect(
            log.all.contains { event in
                if case .deprecatedLinkFollowed(_, let url, _) = event { url == Graph.url("/old") } else { false }
            })
    }

    @Test func aChainSentToAnEmbeddedResourceWithADeprecatedSelfLinkReportsIt() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            Graph.base + "/",
            json: Graph.resource(
                "/",
                embedded: [
                    "order": ["_links": ["self": ["href": "/old", "deprecation": "https://api.example.com/d/old"]]]
                ]))
        await requester.register(Graph.base + "/old") { request in
            ResourceResponse(status: 204, url: request.url, body: Data())
        }
        let log = EventLog()
        let response = try await manager(requester, log: log).entry(Graph.url("/")).follow("order").send(.delete)
        #expect(response.status == 204)
        #expect(
            log.all.contains { event in
                if case .deprecatedLinkFollowed(_, let url, _) = event { url == Graph.url("/old") } else { false }
            })
    }
}

/// The same rule over HTTP: a page on one loopback server whose `next` page is on another.
@Suite struct PagingCredentialHTTPTests {
    struct Numbered: Decodable { let n: Int }

    @Test func aNextPageOnAnotherServerGetsNoCredentials() async throws {
        let first = try await TestServer.shared()
        let second = try await TestServer.secondary()
        let tag = UUID().uuidString
        let next = second.url("/linked-page?count=2&tag=\(tag)")
        let start = first.url(
            "/linked-page?count=1&tag=\(tag)&next=" + TestServer.queryValue(next.absoluteString))
        let manager = ResourceManager.over(URLSessionRequester()) { $0.headers = ["Authorization": "Bearer secret"] }

        let items = try await manager.items(Numbered.self, from: start).collect()
        #expect(items.map(\.n) == [0, 0, 1])
        let page = try await manager.requestPage(HalleyRequest<Numbered>(url: start))
        #expect(try await manager.nextPage(of: page)?.items.map(\.n) == [0, 1])

        let seenThere = try await second.requests(containing: tag)
        #expect(seenThere.count == 6, "both calls asked the second server for its page and two items")
        #expect(seenThere.allSatisfy { $0.headers["authorization"] == nil }, "\(seenThere)")
        let seenHere = try await first.requests(containing: tag)
        #expect(!seenHere.isEmpty)
        #expect(seenHere.allSatisfy { $0.headers["authorization"] == "Bearer secret" })
    }
}
