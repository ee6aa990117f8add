import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// `PeerDocumentTests`' documents served by the loopback test server (`Fixtures/server/peers/`).
@Suite struct PeerDocumentHTTPTests {
    @Test func overHTTPPeerDocumentsAreReadAsPeersReadThem() async throws {
        let server = try await TestServer.shared()
        let manager = ResourceManager(requester: URLSessionRequester())
        let strings = try await manager.resource(from: server.url("/peers/strings"))
        #expect(strings["_embedded"]?["strings"] == ["alpha", "beta", "gamma"])
        let document = try await manager.document(at: server.url("/peers/strings"))
        #expect(document.embedded.value(for: "strings")?.arrayValue?.count == 3)

        let admins = try await manager.resource(from: server.url("/peers/admins"), includes: ["ea:admin@boss"])
        #expect(admins["ea:admin"]?["name"] == "Boss")
        await #expect {
            _ = try await manager.resource(from: server.url("/peers/admins"), includes: ["ea:admin@fred"])
        } throws: { ($0 as? HalleyError)?.code == .malformedLink }
    }
}
