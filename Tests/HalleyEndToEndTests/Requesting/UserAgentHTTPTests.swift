import Foundation
import Halley
import HalleyTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `User-Agent` that reaches a server (issue #38): `Halley/<version>` from both HTTP
/// requesters unless the caller sets one, as the loopback server's request log records it.
@Suite struct UserAgentHTTPTests {
    /// A marker no other request contains.
    func marker() -> String { "ua" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() }

    /// The `User-Agent` of each request whose target holds `tag`, in arrival order.
    func agents(_ server: TestServer, _ tag: String) async throws -> [String?] {
        try await server.requests(containing: tag).map { $0.headers["user-agent"] }
    }

    @Test(arguments: Transport.allCases)
    func everyRequestCarriesTheLibrarysAgent(transport: Transport) async throws {
        let server = try await TestServer.shared()
        let tag = marker()
        let manager = ResourceManager.over(try transport.make())
        // The root's target names the linked URL, tag included: both requests are found.
        let root = server.linkTo(server.url("/echo-headers?tag=\(tag)"))
        _ = try await manager.resource(from: root, includes: ["other"])
        #expect(try await agents(server, tag) == [HalleyVersion.userAgent, HalleyVersion.userAgent])
    }

    @Test(arguments: Transport.allCases)
    func aCallersAgentWins(transport: Transport) async throws {
        let server = try await TestServer.shared()
        let tag = marker()
        let manager = ResourceManager.over(try transport.make()) { $0.headers = ["User-Agent": "Shop/2.1"] }
        _ = try await manager.document(at: server.url("/echo-headers?tag=\(tag)"))
        var options = CallOptions()
        options.headers = ["user-agent": "Checkout/3"]
        _ = try await manager.document(at: server.url("/echo-headers?tag=\(tag)&call"), options: options)
        #expect(try await agents(server, tag) == ["Shop/2.1", "Checkout/3"])
    }

    @Test func aURLSessionConfigurationsAgentWins() async throws {
        // The agent a caller gives its session (URLSessionRequester's documented example) is
        // theirs too: the library's default gives way to it.
        let server = try await TestServer.shared()
        let tag = marker()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["User-Agent": "MyApp/1.0"]
        let own = ResourceManager.over(URLSessionRequester(configuration: configuration))
        _ = try await own.document(at: server.url("/echo-headers?tag=\(tag)"))
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let callers = ResourceManager.over(URLSessionRequester(session: session))
        _ = try await callers.document(at: server.url("/echo-headers?tag=\(tag)&session"))
        // A manager's header still wins over the session's, as URLSession lets a request's win.
        let named = ResourceManager.over(URLSessionRequester(configuration: configuration)) {
            $0.headers = ["User-Agent": "Shop/2.1"]
        }
        _ = try await named.document(at: server.url("/echo-headers?tag=\(tag)&manager"))
        #expect(try await agents(server, tag) == ["MyApp/1.0", "MyApp/1.0", "Shop/2.1"])
    }
}
