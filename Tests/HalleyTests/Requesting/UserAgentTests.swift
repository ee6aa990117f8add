import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// The default `User-Agent` (issue #38): every request of every call carries
/// `Halley/<version>` unless the caller sets one, at any layer. The requesters' own tests
/// (`HalleyEndToEndTests/Requesting/UserAgentHTTPTests`) check what reaches a server.
@Suite struct UserAgentTests {
    let base = Graph.base

    func requester() async -> InMemoryRequester {
        let requester = InMemoryRequester()
        await requester.serve("/a", links: ["b": Graph.link("/b")])
        await requester.serve("/b")
        await requester.register(base + "/orders", json: ["ok": true])
        return requester
    }

    @Test func theVersionIsSemanticAndTheAgentNamesIt() {
        #expect(HalleyVersion.current.wholeMatch(of: #/\d+\.\d+\.\d+/#) != nil)
        #expect(HalleyVersion.userAgent == "Halley/\(HalleyVersion.current)")
    }

    @Test func everyRequestOfATraversalAndAnActionCarriesTheDefault() async throws {
        let requester = await requester()
        let manager = ResourceManager(requester: requester)
        _ = try await manager.resource(from: Graph.url("/a"), includes: ["b"])
        _ = try await manager.send(.post, to: Graph.url("/orders"), body: .json(["item": "book"]))
        var forms = CallOptions()
        forms.acceptsForms = true
        _ = try await manager.document(at: Graph.url("/b"), options: forms)
        let agents = await requester.requests.map { $0.headers["User-Agent"] }
        #expect(agents == Array(repeating: HalleyVersion.userAgent, count: 4), "\(agents)")
    }

    @Test func aCallersUserAgentWinsAtEveryLayer() async throws {
        func agent(
            configuration: ResourceManager.Configuration = .init(), options: CallOptions = CallOptions()
        ) async throws -> [String?] {
            let requester = await requester()
            _ = try await ResourceManager(requester: requester, configuration: configuration)
                .resource(from: Graph.url("/a"), includes: ["b"], options: options)
            return await requester.requests.map { $0.headers["User-Agent"] }
        }
        var manager = ResourceManager.Configuration()
        manager.headers = ["user-agent": "Shop/2.1"]
        #expect(try await agent(configuration: manager) == ["Shop/2.1", "Shop/2.1"])

        var provided = ResourceManager.Configuration()
        provided.headerProvider = { ["User-Agent": "Provided/1"] }
        #expect(try await agent(configuration: provided) == ["Provided/1", "Provided/1"])

        var call = CallOptions()
        call.headers = ["User-Agent": "Call/1"]
        #expect(try await agent(configuration: manager, options: call) == ["Call/1", "Call/1"])

        // The last word: a request may go without one.
        var none = CallOptions()
        none.configureRequest = { $0.headers["User-Agent"] = nil }
        #expect(try await agent(options: none) == [nil, nil])
    }

    @Test func aCallersUserAgentIsNotACredential() async throws {
        // Set on the manager, it goes to every origin as the default does.
        let requester = InMemoryRequester()
        await requester.serve("/a", links: ["other": Graph.link("https://other.example.com/x")])
        await requester.register("https://other.example.com/x", json: ["ok": true])
        var configuration = ResourceManager.Configuration()
        configuration.headers = ["User-Agent": "Shop/2.1"]
        _ = try await ResourceManager(requester: requester, configuration: configuration)
            .resource(from: Graph.url("/a"), includes: ["other"])
        #expect(await requester.requests.map { $0.headers["User-Agent"] } == ["Shop/2.1", "Shop/2.1"])
    }
}
