import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Random access (`item(at:)`, `items(in:)`) into a Spring Data REST collection of 95 orders,
/// 10 per page, whatever the start looks like: it lands on the right items or throws.
@Suite struct RandomAccessTests {
    struct Order: Decodable, Equatable { let id: Int }

    /// A Spring page of `total` orders as the server renders it: `page` metadata and
    /// first/prev/next/last links with `page` and `size` query items.
    static func springPage(base: String, path: String, page: Int, size: Int, total: Int = 95) -> JSONValue {
        let pages = (total + size - 1) / size
        func link(_ number: Int) -> JSONValue { Graph.link("\(base)\(path)?page=\(number)&size=\(size)") }
        var links: JSONObject = ["self": link(page), "first": link(0), "last": link(max(pages - 1, 0))]
        if page > 0 { links["prev"] = link(page - 1) }
        if page + 1 < pages { links["next"] = link(page + 1) }
        let ids = (page * size + 1)...max(page * size + 1, min((page + 1) * size, total))
        let orders: [JSONValue] = ids.filter { $0 <= total }.map { id in
            ["id": .int(id), "_links": ["self": Graph.link("/orders/\(id)")]]
        }
        return [
            "_links": .object(links), "_embedded": ["orders": .array(orders)],
            "page": [
                "size": .int(size), "totalElements": .int(total), "totalPages": .int(pages), "number": .int(page),
            ],
        ]
    }

    /// `/orders` answering `?size=10` with page 0 and `?page=N&size=10` with page N; with
    /// `honoursPage` false every URL answers page 0, as a server that ignores the parameter.
    private func springServer(honoursPage: Bool = true) async -> InMemoryRequester {
        let requester = InMemoryRequester()
        let base = Graph.base
        await requester.register(
            base + "/orders?size=10", json: Self.springPage(base: base, path: "/orders", page: 0, size: 10))
        for page in 0..<12 {
            await requester.register(
                base + "/orders?page=\(page)&size=10",
                json: Self.springPage(base: base, path: "/orders", page: honoursPage ? min(page, 10) : 0, size: 10))
        }
        return requester
    }

    private func ids(_ orders: [Order]) -> [Int] { orders.map(\.id) }

    // MARK: In memory

    @Test func aPlainURLStringLandsOnTheRightItems() async throws {
        let manager = ResourceManager(requester: await springServer())
        let orders = manager.items(Order.self, from: Graph.base + "/orders?size=10")
        #expect(try await orders.item(at: 73)?.id == 74)
        #expect(ids(try await orders.items(in: 35..<45)) == Array(36...45))
        #expect(ids(try await orders.items(in: 90..<100)) == Array(91...95), "the collection ends at 95")
        #expect(try await orders.item(at: 95) == nil)
        #expect(try await orders.item(at: 0)?.id == 1)
    }

    @Test func aStringWithoutExpressionsBehavesExactlyLikeAURL() async throws {
        let requester = await springServer()
        let manager = ResourceManager(requester: requester)
        let fromString = try await manager.items(Order.self, from: Graph.base + "/orders?size=10").items(in: 35..<45)
        let stringRequests = await requester.requestedURLs
        await requester.resetCounts()
        let fromURL = try await manager.items(Order.self, from: Graph.url("/orders?size=10")).items(in: 35..<45)
        #expect(fromString == fromURL)
        #expect(stringRequests == (await requester.requestedURLs))
        #expect(
            stringRequests == [
                Graph.base + "/orders?size=10", Graph.base + "/orders?page=3&size=10",
                Graph.base + "/orders?page=4&size=10",
            ])
    }

    @Test func enumerationFromAPlainURLStringWalksEveryPageOnce() async throws {
        let manager = ResourceManager(requester: await springServer())
        let all = try await manager.items(Order.self, from: Graph.base + "/orders?size=10").collect()
        #expect(ids(all) == Array(1...95))
    }

    @Test func aStartInTheMiddleCountsFromItsOwnFirstItem() async throws {
        let manager = ResourceManager(requester: await springServer())
        let orders = manager.items(Order.self, from: Graph.base + "/orders?page=3&size=10")
        #expect(try await orders.item(at: 0)?.id == 31, "as enumeration would yield it")
        #expect(try await orders.item(at: 25)?.id == 56)
        let templated = manager.items(
            Order.self, from: Graph.base + "/orders{?page,size}", variables: ["page": 3, "size": 10])
        #expect(try await templated.item(at: 25)?.id == 56)
        #expect(ids(try await templated.items(in: 0..<3)) == [31, 32, 33])
    }

    @Test func aServerThatIgnoresThePageParameterIsATypedErrorNotWrongItems() async throws {
        let manager = ResourceManager(requester: await springServer(honoursPage: false))
        let orders = manager.items(Order.self, from: Graph.base + "/orders?size=10")
        await #expect {
            try await orders.item(at: 73)
        } throws: { ($0 as? HalleyError)?.code == .pageMismatch }
        let templated = manager.items(Order.self, from: Graph.base + "/orders{?page,size}", variables: ["size": 10])
        await #expect {
            try await templated.items(in: 35..<45)
        } throws: { ($0 as? HalleyError)?.code == .pageMismatch }
        #expect(try await orders.item(at: 3)?.id == 4, "the first page itself is fine")
    }
}
