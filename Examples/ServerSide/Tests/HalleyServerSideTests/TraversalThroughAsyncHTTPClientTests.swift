import AsyncHTTPClient
import Foundation
import Halley
import HalleyServerSide
import Logging
import Testing

/// What the traversal decodes: `Fixtures/shop.json` and its relationships.
struct Shop: Decodable, Sendable {
    struct Order: Decodable, Sendable {
        let id: Int
        let total: Double
        let customer: Person?
    }

    struct Person: Decodable, Sendable {
        let name: String
    }

    struct Address: Decodable, Sendable {
        let city: String
    }

    let name: String
    let orders: [Order]
    let owner: Person?
    let address: Address?
}

/// A whole traversal through ``AsyncHTTPClientRequester`` against the loopback HAL server,
/// logged through ``TraversalEventLogger``: the decoded result and the log records.
@Suite struct TraversalThroughAsyncHTTPClientTests {
    @Test func decodesTheTraversalAndLogsEveryStep() async throws {
        let server = try await LoopbackServer.hal()
        let requester = AsyncHTTPClientRequester()
        let manager = ResourceManager(requester: requester)
        let log = LogCapture()

        let shop = try await manager.request(
            HalleyRequest<Shop>(
                url: server.url("/shop").absoluteString, includes: ["[orders].customer", "owner", "address"],
                options: log.options()))

        #expect(shop.name == "Corner shop")
        #expect(shop.orders.map(\.id) == [1, 2])
        #expect(shop.orders.map(\.total) == [12.5, 4])
        #expect(shop.orders.first?.customer?.name == "Ada Lovelace")
        #expect(shop.orders.last?.customer == nil)
        #expect(shop.owner?.name == "Ada Lovelace")
        #expect(shop.address?.city == "Localhost")

        // Four documents, each fetched once (the owner and the first customer are one URL).
        let finished = log.entries(for: "requestFinished")
        let paths = ["/shop", "/shop/orders/1", "/shop/orders/2", "/shop/people/1"]
        #expect(Set(finished.compactMap { $0["url.full"] }) == Set(paths.map { server.url($0).absoluteString }))
        #expect(finished.count == 4)
        for entry in finished {
            #expect(entry.level == .debug)
            #expect(entry.message.description == "request finished")
            #expect(entry["http.request.method"] == "GET")
            #expect(entry["http.response.status_code"] == "200")
            #expect(Int(entry["http.response.body.size"] ?? "") ?? 0 > 20, "\(entry)")
            #expect(Double(entry["halley.duration_ms"] ?? "") ?? -1 >= 0, "\(entry)")
            #expect(entry["halley.attempt"] == "1")
        }
        func includePath(of path: String) -> String? {
            finished.first { $0["url.full"] == server.url(path).absoluteString }?["halley.include_path"]
        }
        #expect(includePath(of: "/shop") == "(root)")
        #expect(includePath(of: "/shop/orders/2") == "[orders]")
        #expect(["owner", "[orders].customer"].contains(includePath(of: "/shop/people/1") ?? ""))
        #expect(log.entries(for: "requestStarted").count == 4)
        #expect(log.entries(for: "requestStarted").allSatisfy { $0.level == .trace })

        let deprecated = try #require(log.entries(for: "deprecatedLinkFollowed").first)
        #expect(deprecated.level == .warning)
        #expect(deprecated["url.full"] == server.url("/shop/people/1").absoluteString)
        #expect(deprecated["halley.deprecation"] == "https://docs.example.com/deprecations/owner")
        #expect(deprecated["halley.include_path"] == "owner")

        let missing = try #require(log.entries(for: "relationMissing").first)
        #expect(missing.level == .notice)
        #expect(missing["halley.rel"] == "customer")
        #expect(missing["halley.include_path"] == "[orders].customer")
        #expect(missing["url.full"] == server.url("/shop/orders/2").absoluteString)

        let embedded = try #require(log.entries(for: "embeddedUsed").first)
        #expect(embedded.level == .trace)
        #expect(embedded["halley.rel"] == "address")
        #expect(embedded["halley.count"] == "1")

        #expect(log.entries.allSatisfy { $0.level <= .warning }, "\(log.entries)")
        try await requester.shutdown()
    }

    @Test func anActionGoesThroughTheSameRequester() async throws {
        let server = try await LoopbackServer.hal()
        let requester = AsyncHTTPClientRequester()
        let manager = ResourceManager(requester: requester)
        let created = try await manager.send(
            .post, to: server.url("/echo/orders"), body: .json(["item": "book", "quantity": 2]))
        #expect(created.status == 201)
        #expect(created.location == server.url("/echo/created"))
        let echoed = try #require(try created.resource()?.json)
        #expect(echoed["method"]?.stringValue == "POST")
        #expect(echoed["contentType"]?.stringValue == "application/json")
        let sent = try JSONValue(parsing: Data((echoed["body"]?.stringValue ?? "").utf8))
        #expect(sent["item"]?.stringValue == "book")
        #expect(sent["quantity"]?.intValue == 2)
        try await requester.shutdown()
    }

    @Test func anHTTPErrorStatusIsAResponseForTheEngineToJudge() async throws {
        let server = try await LoopbackServer.hal()
        let requester = AsyncHTTPClientRequester()
        let response = try await requester.response(for: ResourceRequest(url: server.url("/status/404")))
        #expect(response.status == 404)
        #expect(response.headers["content-type"] == "application/problem+json")

        let log = LogCapture()
        let manager = ResourceManager(requester: requester)
        await #expect {
            _ = try await manager.resource(from: server.url("/status/503"), options: log.options())
        } throws: { error in
            (error as? HalleyError)?.httpError?.problem?.status == 503
        }
        let failed = try #require(log.entries(for: "requestFinished").first)
        #expect(failed.level == .info, "a failed request is info: the call's error is the caller's to log")
        #expect(failed["http.response.status_code"] == "503")
        try await requester.shutdown()
    }

    @Test func aRefusedConnectionIsATransportError() async throws {
        // AsyncHTTPClient retries a refused connection until its connect timeout (10 s) by
        // default; the answer is the same, only later.
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        let requester = AsyncHTTPClientRequester(configuration: configuration)
        let manager = ResourceManager(requester: requester)
        let log = LogCapture()
        // Port 1 (tcpmux) has no listener on a loopback test machine.
        await #expect {
            _ = try await manager.resource(from: URL(string: "http://127.0.0.1:1/")!, options: log.options())
        } throws: { error in
            // The code and sentence Halley's own requesters give for a closed port.
            guard let error = error as? HalleyError else { return false }
            return error.code == .transport && error.transportError?.code == .connectionRefused
                && error.message.hasPrefix("127.0.0.1:1 refused the connection")
        }
        let failed = try #require(log.entries(for: "requestFinished").first)
        #expect(failed.level == .info)
        #expect(failed.message.description == "request failed")
        #expect(failed["error.message"]?.isEmpty == false)
        #expect(failed["http.response.status_code"] == nil)
        try await requester.shutdown()
    }

    @Test func afterShutdownRequestsFail() async throws {
        let server = try await LoopbackServer.hal()
        let requester = AsyncHTTPClientRequester()
        _ = try await requester.response(for: ResourceRequest(url: server.url("/shop")))
        try await requester.shutdown()
        try await requester.shutdown()  // a second call is harmless
        await #expect(throws: (any Error).self) {
            _ = try await requester.response(for: ResourceRequest(url: server.url("/shop")))
        }
    }
}
