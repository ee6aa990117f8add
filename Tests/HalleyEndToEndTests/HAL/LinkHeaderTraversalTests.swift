import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Links of the `Link` header field are links of the resource for everything that follows
/// relations: include paths, follow chains, paging, actions; in memory and over loopback HTTP.
@Suite struct LinkHeaderTraversalTests {
    let base = Graph.base

    /// A HAL route whose response carries `link` as its `Link` field.
    func route(_ json: JSONValue, link: String, finalURL: URL? = nil) -> InMemoryRequester.Route {
        InMemoryRequester.Route(
            headers: ["Content-Type": "application/hal+json", "Link": link], body: json.serialized(), finalURL: finalURL
        )
    }

    /// `/orders/7`, whose customer and items are linked only from its `Link` header.
    func orders() async -> InMemoryRequester {
        let requester = InMemoryRequester()
        await requester.register(
            base + "/orders/7",
            route(
                Graph.resource("/orders/7", ["total": 30]),
                link: #"</customers/1>; rel="customer", </orders/7/items/1>; rel="item", </orders/7/items/2>; rel=item"#
            )
        )
        await requester.register(base + "/customers/1", json: Graph.resource("/customers/1", ["name": "Ann"]))
        for item in 1...2 {
            await requester.register(
                base + "/orders/7/items/\(item)", json: Graph.resource("/orders/7/items/\(item)", ["n": .int(item)]))
        }
        return requester
    }

    @Test func includePathsFollowRelationsOnlyInTheHeader() async throws {
        let requester = await orders()
        let order = try await ResourceManager(requester: requester).resource(
            from: Graph.url("/orders/7"), includes: ["customer", "[item]"])
        #expect(order["customer"]?["name"] == "Ann")
        #expect(order["item"]?.arrayValue?.map { $0["n"] } == [1, 2])
        #expect(order["_links"]?["customer"] == nil, "the document is merged as the server wrote it")
        #expect(await requester.requestCount == 4)
    }

    @Test func followChainsAndActionsUseHeaderLinks() async throws {
        let requester = await orders()
        let manager = ResourceManager(requester: requester)
        let customer = try await manager.entry(Graph.url("/orders/7")).follow("customer").resource()
        #expect(customer.state["name"] == "Ann")

        let order = try await manager.document(at: Graph.url("/orders/7"))
        #expect(order.links.rels == ["self", "customer", "item"])
        #expect(order.links.relation("item")?.headerLinkCount == 2)
        let sent = try await manager.send(.post, rel: "customer", of: order)
        #expect(sent.status == 200)
        #expect(await requester.requests.last?.method == .post)
        #expect(await requester.requests.last?.url.absoluteString == base + "/customers/1")
    }

    @Test func pagesLinkedOnlyByTheHeaderAreAllRead() async throws {
        // GitHub's style: the page body is the items, `next` is in the Link header.
        struct Issue: Decodable, Equatable { let id: Int }
        let requester = InMemoryRequester()
        for page in 1...3 {
            let issues = JSONValue.array(((page - 1) * 2 + 1...page * 2).map { ["id": .int($0)] })
            let link =
                page < 3
                ? "<\(base)/issues?page=\(page + 1)>; rel=\"next\", <\(base)/issues?page=3>; rel=\"last\""
                : "<\(base)/issues?page=1>; rel=\"first\""
            await requester.register(
                base + "/issues?page=\(page)", route(["_embedded": ["issues": issues]], link: link))
        }
        var ids: [Int] = []
        for try await issue in ResourceManager(requester: requester).items(
            Issue.self, from: Graph.url("/issues?page=1"))
        {
            ids.append(issue.id)
        }
        #expect(ids == [1, 2, 3, 4, 5, 6])
    }

    @Test func relativeTargetsResolveAgainstTheFinalURLOfARedirect() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            base + "/old/orders/7",
            route(["total": 1], link: "<items>; rel=items", finalURL: Graph.url("/v2/orders/7")))
        let order = try await ResourceManager(requester: requester).document(at: Graph.url("/old/orders/7"))
        #expect(order.links.link(for: "items")?.href == base + "/v2/orders/items")
    }

    @Test func anActionResponseResourceHasItsHeaderLinks() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            base + "/jobs",
            route(["state": "queued"], link: #"</jobs/9/status>; rel="monitor"; title="Job status""#))
        let response = try await ResourceManager(requester: requester).send(.post, to: Graph.url("/jobs"))
        let job = try #require(try response.resource())
        #expect(job.links.link(for: "monitor")?.href == base + "/jobs/9/status")
        #expect(job.links.link(for: "monitor")?.title == "Job status")
    }

    // MARK: Over loopback HTTP

    /// `/link-header` sending each of `links` as its own `Link` line.
    func linkHeaderURL(_ server: TestServer, _ links: [String], next: String? = nil, echo: String) -> URL {
        var query = links.map { "link=" + TestServer.queryValue($0) }
        if let next { query.append("next=" + TestServer.queryValue(next)) }
        query.append("echo=" + TestServer.queryValue(echo))
        return server.url("/link-header?" + query.joined(separator: "&"))
    }

    @Test(arguments: Transport.allCases)
    func severalLinkLinesOverHTTP(transport: Transport) async throws {
        let server = try await TestServer.shared()
        let url = linkHeaderURL(
            server,
            [
                #"</linked-item/2>; rel="next"; title="the same as _links""#,
                #"</linked-item/1>; rel="item"; title="one, with a comma", </linked-item/3>; rel=item"#,
                #"<https://elsewhere.example/doc>; rel="describedby"; type="text/html""#,
            ], next: "/linked-item/2", echo: "several-\(transport)")
        let manager = ResourceManager(requester: try transport.make())
        let document = try await manager.document(at: url)
        #expect(document.problems.isEmpty, "\(document.problems)")
        let item = try #require(document.links.relation("item"))
        #expect(
            item.links.map(\.href) == [
                server.url("/linked-item/1").absoluteString, server.url("/linked-item/3").absoluteString,
            ])
        #expect(item.links.first?.title == "one, with a comma")
        #expect(document.links.relation(.next)?.links.map(\.href) == ["/linked-item/2"])
        #expect(document.links.link(for: "describedby")?.type == "text/html")

        let merged = try await manager.resource(from: url, includes: ["[item]", "next"])
        #expect(merged["item"]?.arrayValue?.map { $0["n"] } == [1, 3])
        #expect(merged["next"]?["n"] == 2)
    }

    @Test(arguments: Transport.allCases)
    func malformedHeaderOverHTTPIsAProblemNotAFailure(transport: Transport) async throws {
        let server = try await TestServer.shared()
        let lines = [#"</linked-item/1>; rel="item"; title="open"#, "</linked-item/4>; rel=item"]
        let url = linkHeaderURL(server, lines, echo: "malformed-\(transport)")
        let combined = lines.joined(separator: ", ")
        let quote = combined.utf8.distance(
            from: combined.startIndex, to: try #require(combined.range(of: "\"open")).lowerBound)
        let document = try await ResourceManager(requester: try transport.make()).document(at: url)
        #expect(document.state["echo"]?.stringValue == "malformed-\(transport)")
        // The two lines arrive as one value: the unclosed quote takes the rest of it.
        let problem = try #require(document.problems.first)
        #expect(document.problems.count == 1)
        #expect(problem.code == .invalidLinkHeader)
        #expect(problem.path == "Link header, byte \(quote)", "\(problem)")
        #expect(problem.description.contains("quoted string that starts at byte \(quote) is not closed"))
        #expect(document.links.relation("item") == nil)
    }

    @Test func relativeTargetsResolveAgainstTheURLAfterARedirectOverHTTP() async throws {
        let server = try await TestServer.shared()
        let target = linkHeaderURL(server, ["<?page=2>; rel=next"], echo: "redirected")
        let start = server.redirect(to: String(target.absoluteString.dropFirst(server.baseURL.absoluteString.count)))
        let document = try await ResourceManager(requester: try CurlRequester()).document(at: start)
        let next = try #require(document.links.link(for: .next)?.href)
        #expect(next == server.url("/link-header?page=2").absoluteString)
    }
}
