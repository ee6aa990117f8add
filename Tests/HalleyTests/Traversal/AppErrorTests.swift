import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Errors an app can show: readable `localizedDescription`, typed problem details, timeouts
/// that say which limit, and no URL said twice.
@Suite struct AppErrorTests {
    let base = Graph.base

    private func error(_ call: () async throws -> some Any) async -> HalleyError? {
        await halleyError(of: call)
    }

    private func occurrences(of needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    @Test func everyPublicErrorHasALocalizedDescriptionThatSaysWhatHappened() throws {
        let halley = HalleyError(
            code: .http, includePath: "[contacts]", url: Graph.url("/x"), message: "HTTP 404 Not Found")
        #expect(halley.localizedDescription == halley.errorDescription)
        #expect(
            halley.description
                == "HTTP 404 Not Found (include path \"[contacts]\", URL \(Graph.url("/x").absoluteString))")
        #expect(!halley.localizedDescription.contains("could not be completed"))
        let errors: [any Error] = [
            halley,
            HTTPError(response: ResourceResponse(status: 500, url: Graph.url("/x"), body: Data())),
            HALDocumentError(code: .missingHref, path: "$._links.a", message: "link has no href"),
            IncludePathError(code: .emptyPath, path: "", offset: 0, message: "empty"),
            ResponseBodyTooLargeError(url: Graph.url("/x"), limit: 10),
        ]
        for error in errors {
            #expect(!error.localizedDescription.contains("could not be completed"), "\(type(of: error))")
        }
        #expect(throws: (any Error).self) { _ = try JSONValue(parsing: Data("[1,".utf8)) }
        do {
            _ = try JSONValue(parsing: Data("[1,".utf8))
        } catch {
            #expect(!error.localizedDescription.contains("could not be completed"))
        }
        do {
            _ = try URITemplate("{unclosed")
        } catch {
            #expect(!error.localizedDescription.contains("could not be completed"))
        }
    }

    @Test func problemDetailsAreTypedAndUsedInTheMessage() async throws {
        let requester = InMemoryRequester()
        let problem: JSONValue = [
            "type": "https://api.example.com/problems/out-of-stock", "title": "Out of stock",
            "status": 409, "detail": "Item 42 is no longer available", "instance": "/orders/7",
            "balance": 30, "accounts": ["/account/1"],
        ]
        await requester.register(
            base + "/order",
            .init(status: 409, headers: ["Content-Type": "application/problem+json"], body: problem.serialized()))
        let error = try #require(
            await error { try await ResourceManager(requester: requester).resource(from: Graph.url("/order")) })
        let details = try #require(error.httpError?.problem)
        #expect(details.type == "https://api.example.com/problems/out-of-stock")
        #expect(details.title == "Out of stock")
        #expect(details.status == 409)
        #expect(details.detail == "Item 42 is no longer available")
        #expect(details.instance == "/orders/7")
        #expect(details.extensions["balance"] == 30)
        #expect(details["accounts"] == ["/account/1"])
        #expect(error.message == "HTTP 409 Conflict: Out of stock: Item 42 is no longer available")
        #expect(occurrences(of: Graph.url("/order").absoluteString, in: error.description) == 1)

        let sloppy = ProblemDetails(["status": "409", "title": 7])
        #expect(sloppy.type == "about:blank", "absent type is about:blank (RFC 9457, 3.1.1)")
        #expect(sloppy.status == nil && sloppy.title == nil, "members of the wrong type are ignored")
        #expect(sloppy["status"] == "409")
    }

    @Test func noErrorTextSaysItsURLTwice() async throws {
        let requester = InMemoryRequester()
        await requester.register(base + "/html", text: "<html></html>")
        await requester.register(base + "/missing", json: ["title": "gone"], status: 404)
        await requester.register(base + "/big", text: String(repeating: "x", count: 100))
        let manager = ResourceManager(requester: requester)
        var small = CallOptions()
        small.maxBodyBytes = 10
        for (path, options) in [("/html", CallOptions()), ("/missing", CallOptions()), ("/big", small)] {
            let error = try #require(
                await error { try await manager.resource(from: Graph.url(path), options: options) })
            #expect(occurrences(of: Graph.url(path).absoluteString, in: error.description) == 1, "\(error.description)")
        }
    }

    @Test func aHeaderLimitIsALimitErrorLikeTheBodyLimit() async throws {
        let requester = InMemoryRequester()
        await requester.register(base + "/headers") { request in
            throw ResponseHeadersTooLargeError(url: request.url, limit: .count(100))
        }
        let error = try #require(
            await error { try await ResourceManager(requester: requester).resource(from: Graph.url("/headers")) })
        #expect(error.code == .limitExceeded)
        #expect(error.message == "the response headers are more than 100 fields")
    }

    @Test func linksAndResourcesPrintReadably() throws {
        let link = Link(href: "/contacts{?page}", templated: true, name: "all", title: "All contacts")
        #expect(link.description == #"/contacts{?page} (templated, name "all", title "All contacts")"#)
        #expect(Link(href: "/a").description == "/a")
        let resource = try HALResource(
            parsing: Graph.resource(
                "/c/1", links: ["contacts": [Graph.link("/c/2"), Graph.link("/c/3")]],
                embedded: ["item": [["n": 1], ["n": 2]]], ["id": "1", "name": "Ada"]
            ).serialized(),
            url: Graph.url("/c/1"))
        #expect(
            resource.description
                == "HAL resource \(base)/c/1: attributes id, name; links self, contacts ×2; embedded item ×2")
    }

    @Test func runtimeValuesAreTemplateValues() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            base + "/",
            json: Graph.resource("/", links: ["ea:order": Graph.link("/orders/{id}{?full,tags*}", ["templated": true])])
        )
        await requester.register(base + "/orders/42?full=true&tags=a&tags=b", json: ["ok": true])
        let manager = ResourceManager(requester: requester)
        let id = 42
        let full = true
        let tags = ["a", "b"]
        let missing: String? = nil
        let order = try await manager.entry(Graph.url("/")).follow(
            "ea:order", ["id": id, "full": full, "tags": tags, "x": missing]
        ).get()
        #expect(order["ok"] == true)
        let rel = LinkRelation("ea:" + "order")  // a relation from a runtime String
        #expect(
            try await manager.entry(Graph.url("/")).follow(rel, ["id": id, "full": full, "tags": tags]).get()["ok"]
                == true)
    }
}
