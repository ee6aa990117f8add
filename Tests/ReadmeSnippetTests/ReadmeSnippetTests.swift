import Foundation
import Halley
import Testing

/// Runs the README's blocks: the quick look and typed models against the sample API they name
/// (`Fixtures/api`, through `FileRequester`), the blocks that take their manager from the reader
/// against SampleAPI.
@Suite(.serialized) struct ReadmeSnippetTests {
    /// The first run of a newcomer: the typed example's models decode the sample API (its ids
    /// are numbers; models declaring `id: String` were a decoding error).
    @Test func theTypedModelsDecodeTheSampleAPI() async throws {
        let ada = try await readmeTypedModels(manager: SampleAPI.fixtureManager())
        #expect(ada.id == 1)
        #expect(ada.name == "Ada Lovelace")
        #expect(ada.website?.id == 1)
        #expect(ada.website?.url.absoluteString == "https://ada.example.com")
        #expect(ada._links?.selfLink?.href == "/contacts/1")
        let contacts = try #require(ada.contacts)
        #expect(contacts.map(\.id) == [2, 3])
        #expect(contacts.map(\.name) == ["Grace Hopper", "Alan Turing"])
        #expect(
            contacts.map { $0.website?.url.absoluteString } == [
                "https://grace.example.com", "https://alan.example.com",
            ])
        // `.full` on each contact: Grace's contacts (Ada again), Alan's empty array.
        #expect(contacts[0].contacts?.map(\.name) == ["Ada Lovelace"])
        #expect(contacts[1].contacts?.isEmpty == true)
    }

    @Test func theQuickLookRunsAgainstTheSampleAPI() async throws {
        let (website, typed) = try await readmeQuickLook(manager: SampleAPI.fixtureManager())
        #expect(website == "https://grace.example.com")
        #expect(typed.contacts?.first?.website?.url.absoluteString == "https://grace.example.com")
        #expect(typed.website?.id == 1)
    }

    @Test func theTypedModelsIncludeListIsTheStringList() throws {
        let plan = try Contact.IncludeType.contactsAndWebsiteOfContacts.includePlan()
        #expect(plan == (try IncludePlan(["[contacts]", "[contacts].[contacts]", "[contacts].website", "website"])))
    }

    @Test func followChains() async throws {
        let (manager, requester) = await SampleAPI.manager()
        let (page, bob) = try await readmeFollowChains(manager: manager, rootURL: SampleAPI.root)
        #expect(page.metadata?.number == 1)
        #expect(page.items.first?.name == "Contact 21")
        #expect(bob.website?.url.absoluteString == "https://contact2.example.com")
        let deletes = await requester.requests.filter { $0.method == .delete }.map(\.url.absoluteString)
        #expect(deletes == ["https://api.example.com/contacts/9"])
    }

    @Test func sdkWrapper() async throws {
        let (manager, _) = await SampleAPI.manager()
        let contact = try await readmeSDKWrapper(api: ContactsAPI(root: manager.entry("https://api.example.com/")))
        #expect(contact.name == "Contact 7")
    }

    @Test func paginatedEnumeration() async throws {
        let (manager, _) = await SampleAPI.manager()
        let result = try await readmePagedItems(manager: manager, url: SampleAPI.contactsPage)
        #expect(result.names.count == SampleAPI.contactCount)
        #expect(result.names.last == "Contact 45")
        #expect(result.firstTen.map(\.id) == Array(1...10))
        #expect(result.all.count == SampleAPI.contactCount)
        #expect(result.tenth?.id == 10)
        #expect(result.slice.map(\.id) == Array(21...40))
    }

    @Test func untypedTraversal() async throws {
        let (manager, _) = await SampleAPI.manager()
        let url = URL(string: "https://api.example.com/contacts/1")!
        let (merged, partial, items, page, document) = try await readmeUntypedTraversal(manager: manager, url: url)
        #expect(merged["ex:contacts"]?[0]?["website"]?["url"] == "https://contact2.example.com")
        #expect(partial.failures.isEmpty)
        #expect(partial.document["contacts"]?[1]?["website"]?["id"] == 3)
        #expect(items.count == 1)
        #expect(page.url == url)
        #expect(document.state["name"] == "Contact 1")
    }

    @Test func requestPolicy() async throws {
        let tokens = TokenStore()
        let (configuration, options) = readmeRequestPolicy(tokens: tokens)
        #expect(configuration.retryPolicy == .standard)
        #expect(configuration.requestTimeout == .seconds(10))
        #expect(options.deadline == .seconds(5))
        let (manager, requester) = await SampleAPI.manager(configuration: configuration)
        _ = try await manager.document(at: SampleAPI.root, options: options)
        let sent = try #require(await requester.requests.first)
        #expect(sent.headers["Authorization"] == "Bearer token-1")
        #expect(sent.headers["User-Agent"] == "MyApp/1.0")
        #expect(sent.headers["X-Trace"] != nil)
    }

    @Test func actions() async throws {
        let (manager, requester) = await SampleAPI.manager()
        let (created, order) = try await readmeActions(
            manager: manager, ordersURL: SampleAPI.orders, basketURL: SampleAPI.basket, orderURL: SampleAPI.order,
            payment: Payment(card: "4111", amount: 30))
        #expect(created.status == 201)
        #expect(created.location == SampleAPI.order)
        #expect(order.id == "42")
        let methods = await requester.requests.map { "\($0.method) \($0.url.path)" }
        #expect(methods == ["POST /orders", "GET /basket", "POST /basket/checkout", "PUT /orders/42"])
    }

    @Test func documentModel() throws {
        let body = try Data(contentsOf: Snippets.repository.appendingPathComponent("Fixtures/hal/orders.json"))
        let summary = try readmeDocumentModel(body: body)
        #expect(summary.processing == 14)
        #expect(summary.next == "/orders?page=2")
        #expect(summary.nextURL?.absoluteString == "https://example.com/orders?page=2")
        #expect(summary.findIsTemplated == true)
        #expect(summary.findDocumentation?.absoluteString == "http://example.com/docs/rels/find")
        #expect(summary.orderCount == 2)
        #expect(summary.templated == ["curies http://example.com/docs/rels/{rel}", "ea:find /orders{?id}"])
    }
}
