import Foundation
import Halley
import HalleyTestSupport
import HalleyTesting
import Testing

/// Issue 38: every requester names Halley in `User-Agent` unless the caller names something
/// else, and the tool names itself; over loopback, as the server sees it.
@Suite struct UserAgentTests {
    private static func api() -> StubAPI {
        let api = StubAPI()
        api.resource("/", StubResource(["name": "root"]).link("forms", "/forms"))
        api.resource("/forms", StubResource())
        return api
    }

    @Test(arguments: Transport.allCases)
    func everyRequesterSendsHalleysUserAgent(transport: Transport) async throws {
        let api = Self.api()
        let server = try api.serve()
        let manager = ResourceManager(requester: try transport.make())
        _ = try await manager.resource(from: server.url("/"), includes: ["forms"])
        #expect(api.requests.count == 2)
        #expect(api.requests.allSatisfy { $0.headers["User-Agent"] == "Halley/\(HalleyVersion.current)" })
    }

    @Test(arguments: Transport.allCases)
    func aCallersUserAgentWins(transport: Transport) async throws {
        let api = Self.api()
        let server = try api.serve()
        var configuration = ResourceManager.Configuration()
        configuration.headers = ["User-Agent": "MyApp/3.1"]
        let manager = ResourceManager(requester: try transport.make(), configuration: configuration)
        _ = try await manager.document(at: server.url("/"))
        var options = CallOptions()
        options.headers = ["User-Agent": "MyApp/3.1 (call)"]
        _ = try await manager.document(at: server.url("/forms"), options: options)
        #expect(api.requests.map { $0.headers["User-Agent"] } == ["MyApp/3.1", "MyApp/3.1 (call)"])
    }

    @Test func theToolSendsItsOwnNameAndAHeaderReplacesIt() async throws {
        let api = Self.api()
        let server = try api.serve()
        let plain = try await CLIRunner.run(["get", server.url("/").absoluteString])
        #expect(plain.status == 0, "\(plain.stderr)")
        let named = try await CLIRunner.run(["get", "-H", "User-Agent: script/1", server.url("/").absoluteString])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(api.requests.map { $0.headers["User-Agent"] } == ["halley/\(HalleyVersion.current)", "script/1"])
    }
}
