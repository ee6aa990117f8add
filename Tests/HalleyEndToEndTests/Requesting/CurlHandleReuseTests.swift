import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// `CurlRequester` reuses its easy handles and sets again only the options a transfer
/// changes: one request's method, body, headers or proxy must never reach the next request
/// on the same handle (requests made one after another get the same handle).
@Suite struct CurlHandleReuseTests {
    func echo(
        _ requester: CurlRequester, _ server: TestServer, _ method: HTTPMethod, headers: HTTPHeaders = [:],
        body: Data? = nil
    ) async throws -> EchoedRequest {
        try EchoedRequest(
            try await requester.response(
                for: ResourceRequest(
                    url: server.url("/echo"), method: method, headers: headers, body: body, timeout: .seconds(10))))
    }

    @Test func nothingCarriesOverFromOneRequestToTheNext() async throws {
        let server = try await TestServer.hostileHTTP()
        let requester = try CurlRequester()

        let first = try await echo(requester, server, .get, headers: ["X-First": "1"])
        #expect(first.method == "GET" && first.body.isEmpty)
        #expect(first.headers["x-first"] == "1")

        let post = try await echo(
            requester, server, .post, headers: ["Content-Type": "text/plain"], body: Data("posted".utf8))
        #expect(post.method == "POST" && post.body == "posted")
        #expect(post.headers["x-first"] == nil && post.headers["content-type"] == "text/plain")

        let get = try await echo(requester, server, .get)
        #expect(get.method == "GET" && get.body.isEmpty, "\(get)")
        #expect(get.headers["content-type"] == nil && get.headers["content-length"] == nil, "\(get.headers)")
        #expect(get.headers["x-first"] == nil)

        let head = try await requester.response(for: ResourceRequest(url: server.url("/small"), method: .head))
        #expect(head.status == 200 && head.body.isEmpty)

        let afterHead = try await echo(requester, server, .get, headers: ["X-Second": "2"])
        #expect(afterHead.method == "GET" && afterHead.headers["x-second"] == "2", "\(afterHead)")

        let put = try await echo(requester, server, .put)
        #expect(put.method == "PUT" && put.body.isEmpty && put.headers["x-second"] == nil, "\(put)")

        let last = try await echo(requester, server, .get)
        #expect(last.method == "GET" && last.body.isEmpty && last.headers["x-second"] == nil, "\(last)")
        #expect(last.headers["expect"] == nil)
    }

    /// libcurl asks for `100 Continue` before a body over 1 MB unless told not to, which costs
    /// a round trip (or a second's wait on a server that never answers it). Only a request with
    /// a body carries the line that turns this off, so a handle that served GETs must gain it.
    @Test func aLargeBodyAfterGetsIsSentWithoutExpect() async throws {
        let server = try await TestServer.hostileHTTP()
        let requester = try CurlRequester()
        _ = try await echo(requester, server, .get)
        let body = Data(repeating: UInt8(ascii: "x"), count: 1_500_000)
        let post = try await echo(requester, server, .post, headers: ["Content-Type": "text/plain"], body: body)
        #expect(post.method == "POST" && post.body.utf8.count == body.count)
        #expect(post.headers["expect"] == nil, "\(post.headers)")
        let get = try await echo(requester, server, .get)
        #expect(get.method == "GET" && get.headers["expect"] == nil && get.body.isEmpty, "\(get.headers)")
    }

    @Test func aDirectRequestAfterAProxiedOneGoesDirect() async throws {
        let nginx = try await TLSLab.nginx()
        let tinyproxy = try await TLSLab.proxy()
        let marker = "m\(UUID().uuidString.prefix(8))"
        let requester = try CurlRequester(proxy: ProxyConfiguration(url: tinyproxy.url(), noProxy: ["localhost"]))
        for (index, host) in ["127.0.0.1", "localhost", "127.0.0.1", "localhost"].enumerated() {
            let url = nginx.http("/items/1?\(marker)-\(index)", host: host)
            #expect(try await requester.response(for: ResourceRequest(url: url, timeout: .seconds(10))).status == 200)
            let line = try #require(try await nginx.logLines(containing: "\(marker)-\(index)").first)
            #expect(line.contains("via=[-]") == (host == "localhost"), "\(host): \(line)")
        }
        #expect(try await tinyproxy.requestLines(containing: marker, count: 2).count == 2)
    }
}
