import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// `RandomAccessTests` over loopback HTTP: the test server's `/orders` renders the same Spring
/// Data REST pages of 95 orders.
@Suite struct RandomAccessHTTPTests {
    struct Order: Decodable, Equatable { let id: Int }

    private func ids(_ orders: [Order]) -> [Int] { orders.map(\.id) }

    @Test func overHTTPAPlainURLStringLandsOnTheRightItems() async throws {
        let server = try await TestServer.shared()
        let manager = ResourceManager(requester: URLSessionRequester())
        let orders = manager.items(Order.self, from: server.url("/orders?size=10").absoluteString)
        #expect(try await orders.item(at: 73)?.id == 74)
        #expect(ids(try await orders.items(in: 35..<45)) == Array(36...45))
        #expect(ids(try await orders.items(in: 88..<200)) == Array(89...95))
        #expect(ids(try await orders.collect()) == Array(1...95))
    }

    @Test func overHTTPAServerThatIgnoresThePageIsATypedError() async throws {
        let server = try await TestServer.shared()
        let manager = ResourceManager(requester: URLSessionRequester())
        let orders = manager.items(Order.self, from: server.url("/orders-ignoring-page?size=10").absoluteString)
        await #expect {
            try await orders.item(at: 73)
        } throws: { ($0 as? HalleyError)?.code == .pageMismatch }
    }
}
