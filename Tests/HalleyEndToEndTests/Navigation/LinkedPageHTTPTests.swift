import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// `LinkedPageTests` over loopback HTTP: the server's log shows that the requests are the items
/// the consumer read, each once.
@Suite struct LinkedPageHTTPTests {
    struct Item: Decodable, Equatable { let n: Int }

    @Test func overLoopbackHTTPTheRequestsAreTheItemsRead() async throws {
        let server = try await TestServer.shared()
        let tag = UUID().uuidString
        let manager = ResourceManager()
        let page = server.url("/linked-page?count=1000&tag=\(tag)")
        var options = CallOptions()
        options.maxConcurrency = 1
        let five = try await manager.items(Item.self, from: page, options: options).prefix(5).collected()
        #expect(five.map(\.n) == [0, 1, 2, 3, 4])
        #expect(try await server.requests(containing: tag).map(\.path).count == 6)

        let tagAll = UUID().uuidString
        let all = try await manager.items(
            Item.self, from: server.url("/linked-page?count=1000&tag=\(tagAll)")
        ).collect()
        #expect(all.map(\.n) == Array(0..<1_000))
        let seen = try await server.requests(containing: tagAll).map(\.path)
        #expect(seen.count == 1_001)
        #expect(Set(seen).count == 1_001, "no item fetched twice")
    }
}
