import Foundation
import Halley

/// What the DocC articles' snippets run against, and the names they leave to the reader.
/// Scaffolding only: nothing here appears in the articles. `nonisolated`, as the reader's own
/// test helpers would be: its handlers run in the requester, off the main actor, also where
/// Tools/MainActorApp compiles this file with default main-actor isolation.
nonisolated enum ArticleAPIs {
    /// The repository's `Fixtures/api` folder, the sample API most articles read.
    static let fixtures = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()  // also when linked
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // ArticleSnippetTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository
        .appendingPathComponent("Fixtures/api")

    /// A manager answering from `Fixtures/api`.
    static func fixtureManager(configuration: ResourceManager.Configuration = .init()) -> ResourceManager {
        ResourceManager(requester: FileRequester(directory: fixtures), configuration: configuration)
    }

    /// The shop the paging and action articles use: a Spring collection of 95 orders, ten
    /// per page, a server that ignores the page parameter, and orders to act on.
    static func shop() async -> InMemoryRequester {
        let requester = InMemoryRequester()
        let pages = 10
        for number in 0..<pages {
            let page = ordersPage(number, base: "https://shop.example.com")
            await requester.register("https://shop.example.com/orders?page=\(number)&size=10", json: page)
            // A server that ignores `page` and always answers with the first page.
            await requester.register(
                "https://legacy.example.com/orders?page=\(number)&size=10",
                json: ordersPage(0, base: "https://legacy.example.com"))
        }
        await requester.register(
            "https://shop.example.com/status", json: ["_links": ["self": ["href": "/status"]], "healthy": true])
        await requester.register("https://shop.example.com/orders") { request in
            guard request.method == .post else { return response(405, for: request) }
            return response(
                201, for: request, headers: ["Location": "/orders/42"], body: order(42, status: "created"))
        }
        await requester.register("https://shop.example.com/orders/42") { request in
            switch request.method {
            case .get: return response(200, for: request, body: order(42, status: "created"))
            case .put: return response(200, for: request, body: order(42, status: "renamed"))
            case .delete: return response(204, for: request)
            default: return response(405, for: request)
            }
        }
        // The follow chains article's order whose customer is linked only from its Link header.
        await requester.register(
            "https://shop.example.com/orders/7",
            InMemoryRequester.Route(
                headers: [
                    "Content-Type": "application/hal+json",
                    "Link": #"</customers/3>; rel="customer"; title*=UTF-8''Ad%C3%A0, "#
                        + #"</orders/7/invoice>; rel="invoice""#,
                ], body: order(7, status: "shipped").serialized()))
        await requester.register(
            "https://shop.example.com/customers/3",
            json: ["_links": ["self": ["href": "/customers/3"]], "name": "Ad\u{E0}"])
        await requester.register("https://shop.example.com/orders/42/payment") { request in
            response(request.method == .post ? 204 : 405, for: request)
        }
        return requester
    }

    /// Page `number` of the orders, Spring Data REST style.
    static func ordersPage(_ number: Int, base: String) -> JSONValue {
        let total = 95
        let size = 10
        let pages = (total + size - 1) / size
        func link(_ page: Int) -> JSONValue { ["href": .string("\(base)/orders?page=\(page)&size=\(size)")] }
        var links: JSONObject = ["self": link(number), "first": link(0), "last": link(pages - 1)]
        if number > 0 { links["prev"] = link(number - 1) }
        if number + 1 < pages { links["next"] = link(number + 1) }
        let ids = (number * size + 1)...min((number + 1) * size, total)
        let orders: [JSONValue] = ids.map { ["id": .int($0), "_links": ["self": ["href": .string("/orders/\($0)")]]] }
        return [
            "_links": .object(links),
            "_embedded": ["orders": .array(orders)],
            "page": [
                "size": .int(size), "totalElements": .int(total), "totalPages": .int(pages), "number": .int(number),
            ],
        ]
    }

    static func order(_ id: Int, status: String) -> JSONValue {
        [
            "_links": [
                "self": ["href": .string("/orders/\(id)")],
                "ea:pay": ["href": .string("/orders/\(id)/payment")],
                "ea:cancel": ["href": .string("/orders/\(id)")],
            ],
            "id": .int(id),
            "status": .string(status),
        ]
    }

    static func response(
        _ status: Int, for request: ResourceRequest, headers: HeaderFields = [:], body: JSONValue? = nil
    ) -> ResourceResponse {
        var fields: HeaderFields = body == nil ? [:] : ["Content-Type": "application/hal+json"]
        fields.merge(headers)
        return ResourceResponse(status: status, headers: fields, url: request.url, body: body?.serialized() ?? Data())
    }
}

/// The request policy article's `TokenStore`: hands out a bearer token and renews it.
actor TokenStore {
    private var token = "expired"
    private(set) var refreshes = 0

    func current() async throws -> String { token }

    func refresh() async throws {
        refreshes += 1
        token = "fresh"
    }
}

/// The testing article's `Attempts`: counts the calls of a scripted handler.
actor Attempts {
    private var count = 0

    func next() -> Int {
        count += 1
        return count
    }
}
