import Foundation
import HalleyTestFixtures
import Testing

@testable import HalleyHAL

@Suite struct HALResourceTests {
    let ordersURL = URL(string: "https://example.com/orders")

    @Test func readsTheHALDraftExample() throws {
        let orders = try HALResource(parsing: Fixture.data("hal/orders.json"), url: ordersURL)
        #expect(orders.state["currentlyProcessing"] == .int(14))
        #expect(orders.state.keys == ["currentlyProcessing", "shippedToday"])
        #expect(orders.links.rels.map(\.rawValue) == ["self", "next", "ea:find", "ea:admin"])
        #expect(orders.links.link(for: .next)?.href == "/orders?page=2")
        #expect(orders.links["ea:admin"].map(\.title) == ["Fred", "Kate"])
        #expect(orders.links.link(for: "ea:find")?.templated == true)

        let embeddedOrders = orders.embedded.resources(for: "ea:order")
        #expect(embeddedOrders.count == 2)
        #expect(embeddedOrders.map { $0.state["status"] } == ["shipped", "processing"])
        #expect(embeddedOrders[0].state["total"] == .double(30))
        #expect(orders.embedded.entry(for: "ea:order")?.isArray == true)
        #expect(orders.problems.isEmpty)
    }

    @Test func resolvesRelativeHrefsAgainstTheDocumentAndEmbeddedSelf() throws {
        let orders = try HALResource(parsing: Fixture.data("hal/orders.json"), url: ordersURL)
        let next = try #require(orders.links.link(for: .next))
        #expect(orders.url(for: next)?.absoluteString == "https://example.com/orders?page=2")
        let first = try #require(orders.embedded.resource(for: "ea:order"))
        #expect(first.baseURL?.absoluteString == "https://example.com/orders/123")
        let basket = try #require(first.links.link(for: "ea:basket"))
        #expect(first.url(for: basket)?.absoluteString == "https://example.com/baskets/98712")
        let find = try #require(orders.links.link(for: "ea:find"))
        #expect(orders.url(for: find) == nil, "templated links need expanding first")
    }

    @Test func embeddedResourcesWithoutSelfUseTheEnclosingBase() throws {
        let invoice = try HALResource(
            parsing: Fixture.data("hal/embedded-without-self.json"), url: URL(string: "https://other.example.com/x"))
        #expect(invoice.baseURL?.absoluteString == "https://api.example.com/invoices/7")
        let lines = invoice.embedded.resources(for: "line")
        #expect(lines.count == 2)
        let product = try #require(lines[0].links.link(for: "product"))
        #expect(lines[0].url(for: product)?.absoluteString == "https://api.example.com/products/a1")
        let author = lines[1].embedded.resource(for: "note")?.embedded.resource(for: "author")
        #expect(author?.state["name"] == "Sam")
        #expect(invoice.embedded.entry(for: "customer")?.isArray == false)
        #expect(invoice.embedded.resource(for: "customer")?.links.selfLink == nil)
    }

    @Test func springDataRestPage() throws {
        let page = try HALResource(parsing: Fixture.data("hal/spring-page.json"))
        #expect(page.state["page"]?["totalElements"] == .int(10))
        #expect(page.embedded.resources(for: "people").map { $0.state["firstName"] } == ["Frodo", "Bilbo"])
        #expect(page.links.link(for: .last)?.href == "http://localhost:8080/people?page=4&size=2")
        #expect(page.links.link(for: .search)?.templated == true)
    }

    @Test func underscoreKeysOtherThanLinksAndEmbeddedAreState() throws {
        let resource = try HALResource(parsing: Fixture.data("hal/link-arrays.json"))
        #expect(resource.state["_id"]?.stringValue?.hasPrefix("underscore") == true)
        #expect(resource.state["big"] == .double(1.2345678901234567e19))
        #expect(resource.state["ratio"] == .double(0.5))
        #expect(resource.state["note"] == .null)
        #expect(resource.state["unicode"] == "Zoë é 😀")
        #expect(resource.embedded.entries.isEmpty)
    }

    @Test func resourceRoundTripsThroughItsJSON() throws {
        let data = try Fixture.data("hal/orders.json")
        let resource = try HALResource(parsing: data)
        #expect(try JSONValue(parsing: data) == .object(resource.json))
        #expect(resource.links.json == resource.json["_links"]?.objectValue)
    }
}
