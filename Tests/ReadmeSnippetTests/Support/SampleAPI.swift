import Foundation
import Halley

/// The in-memory API the README's navigation, traversal and action snippets run against: the
/// names the README leaves to the reader (a manager, URLs, a token store, an order) and the
/// documents behind them, shaped like `Fixtures/api` (numeric ids), so the README's models
/// decode both. Scaffolding only: nothing here appears in the documentation.
enum SampleAPI {
    static let base = "https://api.example.com"
    static let root = URL(string: "https://api.example.com/")!
    /// The first page of the contacts collection (20 of 45 contacts per page).
    static let contactsPage = URL(string: "https://api.example.com/contacts?page=0&size=20")!
    static let orders = URL(string: "https://api.example.com/orders")!
    static let order = URL(string: "https://api.example.com/orders/42")!
    static let basket = URL(string: "https://api.example.com/basket")!

    static let contactCount = 45

    /// A manager answering from the repository's `Fixtures/api`, the sample API the README's
    /// quick start and typed models name.
    static func fixtureManager() -> ResourceManager {
        ResourceManager(
            requester: FileRequester(directory: Snippets.repository.appendingPathComponent("Fixtures/api")))
    }
    static let pageSize = 20

    /// A manager over a fresh copy of the API, and the requester to inspect.
    static func manager(configuration: ResourceManager.Configuration = .init()) async
        -> (ResourceManager, InMemoryRequester)
    {
        let requester = await requester()
        return (ResourceManager(requester: requester, configuration: configuration), requester)
    }

    static func requester() async -> InMemoryRequester {
        let requester = InMemoryRequester()
        await requester.register(
            base + "/",
            json: [
                "_links": [
                    "self": ["href": "/"],
                    "curies": [["name": "ex", "href": "https://docs.example.com/rels/{rel}", "templated": true]],
                    "ex:contacts": ["href": "/contacts{?page,size}", "templated": true],
                    "ex:contact": ["href": "/contacts/{id}", "templated": true],
                ]
            ])
        for id in 1...contactCount {
            await requester.register(base + "/contacts/\(id)", json: contact(id))
            await requester.register(base + "/websites/\(id)", json: website(id))
        }
        let pages = (contactCount + pageSize - 1) / pageSize
        for number in 0..<pages {
            let page = contactsPage(number, of: pages)
            await requester.register(base + "/contacts?page=\(number)&size=\(pageSize)", json: page)
            if number == 0 {
                // The first page as `{?page,size}` expands without a size, or without a page.
                await requester.register(base + "/contacts?page=0", json: page)
                await requester.register(base + "/contacts?size=\(pageSize)", json: page)
            }
        }
        // Actions: a created order, a basket to check out, an order to replace.
        await requester.register(
            orders.absoluteString,
            .init(
                status: 201, headers: ["Content-Type": "application/hal+json", "Location": "/orders/42"],
                body: order(42)))
        await requester.register(order.absoluteString, .init(body: order(42)))
        await requester.register(
            basket.absoluteString,
            json: ["_links": ["self": ["href": "/basket"], "ea:checkout": ["href": "/basket/checkout"]]])
        await requester.register(base + "/basket/checkout", .init(status: 204, headers: [:], body: Data()))
        return requester
    }

    /// Contact `id`: its website embedded and linked, and links to the next two contacts.
    static func contact(_ id: Int) -> JSONValue {
        let friends = [id % contactCount + 1, (id + 1) % contactCount + 1]
        let friendLinks: [JSONValue] = friends.map { ["href": .string("/contacts/\($0)")] }
        return [
            "_links": [
                "self": ["href": .string("/contacts/\(id)")],
                "curies": [["name": "ex", "href": "https://docs.example.com/rels/{rel}", "templated": true]],
                "contacts": .array(friendLinks),
                "ex:contacts": .array(friendLinks),
                "website": ["href": .string("/websites/\(id)")],
            ],
            "id": .int(id),
            "name": .string("Contact \(id)"),
            "_embedded": ["website": website(id)],
        ]
    }

    static func website(_ id: Int) -> JSONValue {
        [
            "_links": ["self": ["href": .string("/websites/\(id)")]],
            "id": .int(id),
            "url": .string("https://contact\(id).example.com"),
        ]
    }

    /// Page `number` of the contacts, Spring Data REST style.
    static func contactsPage(_ number: Int, of pages: Int) -> JSONValue {
        func link(_ page: Int) -> JSONValue { ["href": .string("/contacts?page=\(page)&size=\(pageSize)")] }
        var links: JSONObject = ["self": link(number), "first": link(0), "last": link(pages - 1)]
        if number > 0 { links["prev"] = link(number - 1) }
        if number + 1 < pages { links["next"] = link(number + 1) }
        let ids = (number * pageSize + 1)...min((number + 1) * pageSize, contactCount)
        return [
            "_links": .object(links),
            "_embedded": ["contacts": .array(ids.map(contact))],
            "page": [
                "size": .int(pageSize), "totalElements": .int(contactCount), "totalPages": .int(pages),
                "number": .int(number),
            ],
        ]
    }

    static func order(_ id: Int) -> Data {
        JSONValue.object([
            "_links": ["self": ["href": .string("/orders/\(id)")]], "id": .string("\(id)"), "item": "book",
        ])
        .serialized()
    }
}

/// What the README's actions decode.
struct Order: Codable, Sendable {
    let id: String
    let item: String
}

/// What the README's checkout sends.
struct Payment: Codable, Sendable {
    let card: String
    let amount: Int
}

/// The README's `tokens`: hands out a bearer token and refreshes it.
actor TokenStore {
    private var token = "token-1"
    private(set) var refreshes = 0

    func current() async throws -> String { token }

    func refresh() async throws {
        refreshes += 1
        token = "token-\(refreshes + 1)"
    }
}

/// The README's `diskCopy(of:)`: no copy on disk. Disk reads belong off the main actor, so an
/// app's would be `nonisolated` too (the fallback runs in the request pipeline).
nonisolated func diskCopy(of url: URL) -> ResourceResponse? { nil }
