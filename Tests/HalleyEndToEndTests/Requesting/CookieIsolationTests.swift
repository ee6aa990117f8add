import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Issue #14: cookies ignore ports, so with a cookie store one service could read and plant
/// cookies for every other service on its host. Requesters keep no cookies at all.
@Suite struct CookieIsolationTests {
    /// The `Cookie` header `/echo` received, if any.
    private func cookieSent(by requester: any RequesterInterface, to url: URL) async throws -> String? {
        let response = try await requester.response(for: ResourceRequest(url: url))
        #expect(response.status == 200)
        return try JSONValue(parsing: response.body)["headers"]?["cookie"]?.stringValue
    }

    @Test(arguments: Transport.allCases)
    func aCookieSetByOnePortIsNeverSentToAnother(transport: Transport) async throws {
        let first = try await TestServer.hostileHTTP()
        let second = try await TestServer.hostileHTTPOtherPort()
        #expect(first.host == second.host && first.port != second.port)
        let requester = try transport.make()

        // The first server sets a session cookie; the second must not receive it.
        let set = try await requester.response(
            for: ResourceRequest(url: first.url("/set-cookie?value=session%3Dfrom-first%3B%20Path%3D%2F")))
        #expect(set.headers["Set-Cookie"] == "session=from-first; Path=/")
        #expect(try await cookieSent(by: requester, to: second.url("/echo")) == nil)

        // The second server plants a cookie; the first must not receive it back.
        _ = try await requester.response(
            for: ResourceRequest(url: second.url("/set-cookie?value=planted%3Dby-second%3B%20Path%3D%2F")))
        #expect(try await cookieSent(by: requester, to: first.url("/echo")) == nil)
        // Not even to the server that set it: the requester keeps no cookies.
        #expect(try await cookieSent(by: requester, to: second.url("/echo")) == nil)
    }

    @Test(arguments: Transport.allCases)
    func aCookieHeaderTheCallerSetsIsSent(transport: Transport) async throws {
        let server = try await TestServer.hostileHTTP()
        let requester = try transport.make()
        let response = try await requester.response(
            for: ResourceRequest(url: server.url("/echo"), headers: ["Cookie": "mine=1"]))
        #expect(try JSONValue(parsing: response.body)["headers"]?["cookie"] == "mine=1")
    }
}
