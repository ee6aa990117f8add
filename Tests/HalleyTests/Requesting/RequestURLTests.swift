import Foundation
import Testing

@testable import Halley

/// A request and a response keep their URL as text (the engine follows links without making a
/// `URL` of each): what a requester reads back must still be the URL that was meant.
@Suite struct RequestURLTests {
    @Test func aRequestReadsBackTheURLItWasGiven() throws {
        let url = try #require(URL(string: "https://api.example.com/orders/7?expand=items#top"))
        var request = ResourceRequest(url: url)
        #expect(request.url == url)
        #expect(request.url.host == "api.example.com")
        #expect(request == ResourceRequest(url: url))
        let other = try #require(URL(string: "https://api.example.com/orders/8"))
        request.url = other
        #expect(request.url == other)
        #expect(request != ResourceRequest(url: url))
    }

    @Test func aRelativeURLReadsBackAsItsAbsoluteForm() throws {
        let base = try #require(URL(string: "https://api.example.com/orders/"))
        let relative = try #require(URL(string: "7?x=1", relativeTo: base))
        let request = ResourceRequest(url: relative)
        #expect(request.url.absoluteString == "https://api.example.com/orders/7?x=1")
        #expect(request.url.baseURL == nil)
        let response = ResourceResponse(url: relative, body: Data())
        #expect(response.url == URL(string: "https://api.example.com/orders/7?x=1"))
    }

    @Test func theLinksATraversalFollowsReachTheRequesterAsTheirURLs() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            "https://api.example.com/",
            json: [
                "_links": [
                    "a": ["href": "/orders/1?x=%20y"], "b": ["href": "https://other.example:8443/b"],
                    "c": ["href": "https://user@api.example.com/c"],
                ]
            ])
        for path in [
            "https://api.example.com/orders/1?x=%20y", "https://other.example:8443/b", "https://user@api.example.com/c",
        ] {
            await requester.register(path, json: ["id": .string(path)])
        }
        let manager = ResourceManager(requester: requester)
        let root = try #require(URL(string: "https://api.example.com/"))
        let merged = try await manager.resource(from: root, includes: ["a", "b", "c"])
        #expect(merged["a"]?["id"] == "https://api.example.com/orders/1?x=%20y")
        #expect(merged["b"]?["id"] == "https://other.example:8443/b")
        #expect(merged["c"]?["id"] == "https://user@api.example.com/c")
        let urls = await requester.requests.map(\.url)
        #expect(urls.contains(try #require(URL(string: "https://other.example:8443/b"))))
        #expect(urls.allSatisfy { $0.scheme == "https" && $0.host != nil })
    }
}
