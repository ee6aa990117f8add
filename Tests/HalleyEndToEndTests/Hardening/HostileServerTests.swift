import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// `HostileInputTests`' corpus over real HTTP: bodies too big or endless, redirect loops (the
/// silent server, a time limit, is `HostileServerTimeoutTests` in HalleyTimingTests). One at a
/// time, on a server of their own, so their load cannot distort other suites.
/// Through the default requester, as a `ResourceManager()` would send them (libcurl on Linux);
/// `HostileTransportTests` holds each HTTP requester to the transport cases on its own.
@Suite(.serialized) struct HostileServerTests {
    private func manager(_ configure: (inout ResourceManager.Configuration) -> Void = { _ in }) -> ResourceManager {
        .over(DefaultRequester.make(), configure: configure)
    }

    /// A 50 MB body and one that never ends are stopped while reading, at the limit.
    @Test(arguments: [(path: "/huge?mb=50", limit: 4 * 1024 * 1024), (path: "/endless", limit: 2 * 1024 * 1024)])
    func aBodyPastTheLimitIsStoppedWhileReading(body: (path: String, limit: Int)) async throws {
        let server = try await TestServer.hostile()
        var options = CallOptions()
        options.maxBodyBytes = body.limit
        let (error, elapsed) = await failure {
            try await manager().resource(from: server.url(body.path), options: options)
        }
        #expect(error?.code == .limitExceeded, "\(String(describing: error))")
        #expect(error?.underlying is ResponseBodyTooLargeError)
        #expect(elapsed < .seconds(30))
    }

    @Test func aRedirectLoopEnds() async throws {
        let server = try await TestServer.hostile()
        let (error, elapsed) = await failure { try await manager().resource(from: server.url("/loop")) }
        #expect(error != nil)
        #expect([HalleyError.Code.transport, .http].contains(error?.code), "\(String(describing: error))")
        #expect(elapsed < .seconds(30))
    }

    @Test func aLinkToAnotherOriginNeverGetsTheToken() async throws {
        let first = try await TestServer.shared()
        let second = try await TestServer.secondary()
        let tag = UUID().uuidString
        let target = second.url("/echo-headers?tag=\(tag)")
        let document = try await manager { $0.headers = ["Authorization": "Bearer secret"] }
            .resource(from: first.linkTo(target), includes: ["other"])
        #expect(document["other"]?["headers"]?["authorization"] == nil)
        #expect(document["other"]?["headers"]?["accept"]?.stringValue?.contains("application/hal+json") == true)
    }
}
