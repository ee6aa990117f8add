import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// `CurlRequester` reuses its easy handles and sets again only the options a transfer
/// changes: one request's method, body, headers or proxy must never reach the next request
/// on the same handle (requests made one after another get the same handle).
@Suite struct CurlHandleReuseTests {
    func echo(
        _ requester: CurlRequester, _ server: TestServer, _ method: RequestMethod, headers: HeaderFields = [:],
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

    /// A handle reuses the strings of its last response's header lines where a line is byte
    /// for byte the same at the same position: a line that changed, even to a value of the
    /// same length, must come out as it is now, and a repeated response as it was.
    @Test func responseHeaderLinesNeverCarryOverFromTheLastResponse() async throws {
        let server = try await TestServer.hostileHTTP()
        let requester = try CurlRequester()
        func cookie(_ value: String) async throws -> String? {
            let url = server.url("/set-cookie?value=" + TestServer.queryValue(value))
            return try await requester.response(for: ResourceRequest(url: url, timeout: .seconds(10)))
                .headers["Set-Cookie"]
        }
        for value in ["a=1", "a=2", "a=2", "b=2", "a=1", "a=10", "a=1"] {
            #expect(try await cookie(value) == value)
        }
        let shapes = ResourceRequest(url: server.url("/header-shapes"), timeout: .seconds(10))
        let first = try await requester.response(for: shapes).headers
        #expect(first["X-Latin"] == "caf\u{e9}" && first["X-Repeat"] == "one, two, three", "\(first)")
        for _ in 0..<2 {
            let again = try await requester.response(for: shapes).headers
            // The server's Date may move on between two responses; every other line is the same.
            #expect(again.fields.filter { $0.name != "Date" } == first.fields.filter { $0.name != "Date" })
        }
        #expect(try await cookie("a=3") == "a=3")
    }
}
