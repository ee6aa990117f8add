// swift-format-ignore-file
// FollowChainsAndActions.md's Swift blocks, verbatim between `// snippet` and
// `// end snippet` (SnippetSyncTests holds them to the article). Everything else is
// scaffolding; ArticleSnippetTests runs the functions against Fixtures/api and the shop.
import Foundation
import Halley

@MainActor func followRels(manager: ResourceManager) async throws -> (Contact, URL, Bool?, FollowChain) {
    // snippet FollowChainsAndActions.md "Follow rels"
    let api = manager.entry("https://api.example.com/")

    let grace = try await api.follow("contact", ["id": 1])
        .follow("contacts", named: "grace")
        .get(Contact.self, includes: ["website"])
    let avatar = try await api.follow("contact", ["id": 1]).follow("avatar", ["size": "small"]).url()
    // https://api.example.com/contacts/1/avatar?size=small, not fetched
    let status = try await api.follow("doc:status").get()
    let healthy = status["healthy"]?.boolValue  // true
    // end snippet
    return (grace, avatar, healthy, api)
}

@MainActor func followMissing(api: FollowChain) async throws -> HalleyError? {
    // snippet FollowChainsAndActions.md "Missing rel"
    do {
        _ = try await api.follow("contact", ["id": 3]).follow("manager").get()
    } catch let error as HalleyError where error.code == .missingRelation {
        print(error.message)  // hop 2 (manager) is not in the resource; available rels: self, contacts, website
        // end snippet
        return error
        // snippet FollowChainsAndActions.md "Missing rel"
    }
    // end snippet
    return nil
}

@MainActor func followLinkHeader(manager: ResourceManager) async throws -> (Link?, Int?, JSONValue) {
    // snippet FollowChainsAndActions.md "Link header"
    // GET https://shop.example.com/orders/7 answers with no customer in _links and
    // Link: </customers/3>; rel="customer"; title*=UTF-8''Ad%C3%A0, </orders/7/invoice>; rel="invoice"
    let order = try await manager.document(at: URL(string: "https://shop.example.com/orders/7")!)
    let customerLink = order.links.link(for: "customer")  // https://shop.example.com/customers/3, title "Adà"
    let fromHeader = order.links.relation("customer")?.headerLinkCount  // 1: the header's
    let customer = try await manager.entry("https://shop.example.com/orders/7").follow("customer").get()
    // end snippet
    return (customerLink, fromHeader, customer)
}

@MainActor func followSDK(manager: ResourceManager) async throws -> (Contact, [String]) {
    // snippet FollowChainsAndActions.md "SDK"
    struct ContactsClient {
        let root: FollowChain

        init(manager: ResourceManager) {
            root = manager.entry("https://api.example.com/")
        }

        func contact(id: Int) -> FollowChain { root.follow("contact", ["id": .string(String(id))]) }
        var everyone: PagedItems<Contact> { root.follow("contacts").items(Contact.self) }
    }

    let client = ContactsClient(manager: manager)
    let alan = try await client.contact(id: 3).get(Contact.self)
    let names = try await client.everyone.collect().map(\.name)
    // end snippet
    return (alan, names)
}

@MainActor func followActions(manager: ResourceManager) async throws -> (status: Int, location: URL, receipt: HALResource?, renamed: String) {
    // snippet FollowChainsAndActions.md "Act"
    struct Order: Decodable {
        let id: Int
        let status: String
    }

    struct Payment: Encodable {
        let card: String
        let amount: Int
    }

    let created = try await manager.send(.post, to: URL(string: "https://shop.example.com/orders")!,
                                         body: .json(["item": "book", "quantity": 2]))
    let status = created.status          // 201
    let location = created.location!     // https://shop.example.com/orders/42
    let receipt = try created.resource()  // the body as a HALResource; nil when there is none

    let order = try await manager.document(at: location)
    _ = try await manager.send(.post, rel: "ea:pay", of: order, body: try .encodable(Payment(card: "4111", amount: 30)))
    let renamed = try await manager.send(.put, to: location, body: .json(["item": "novel"]), decoding: Order.self)
    _ = try await manager.send(.delete, rel: "ea:cancel", of: order)
    // end snippet
    return (status, location, receipt, renamed.status)
}
