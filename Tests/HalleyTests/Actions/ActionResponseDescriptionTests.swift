import Foundation
import Halley
import Testing

/// `print(response)` of an action's response is one line a person reads in a log: the status,
/// the method and URL it answered, and where a created resource lives, not a dump of the
/// struct with its body bytes.
@Suite struct ActionResponseDescriptionTests {
    private func shop() async -> InMemoryRequester {
        let requester = InMemoryRequester()
        await requester.register("http://host/orders") { request in
            ResourceResponse(
                status: 201, headers: ["Location": "/orders/9"], url: request.url,
                body: Data(#"{"_links": {"self": {"href": "/orders/9"}}}"#.utf8))
        }
        await requester.register("http://host/orders/9") { request in
            ResourceResponse(status: 204, url: request.url, body: Data())
        }
        await requester.register(
            "http://host/",
            text: """
                {"_links": {"orders": {"href": "/orders"}},
                 "_templates": {"default": {"method": "POST", "target": "/orders", "properties": []}}}
                """)
        return requester
    }

    @Test func aCreatedResourceNamesStatusMethodURLAndLocation() async throws {
        let manager = ResourceManager(requester: await shop())
        let created = try await manager.send(.post, to: URL(string: "http://host/orders")!, body: .json(["n": 1]))
        #expect("\(created)" == "201 Created POST http://host/orders → Location http://host/orders/9")
    }

    @Test func aResponseWithoutLocationIsStatusMethodAndURL() async throws {
        let manager = ResourceManager(requester: await shop())
        let deleted = try await manager.send(.delete, to: URL(string: "http://host/orders/9")!)
        #expect("\(deleted)" == "204 No Content DELETE http://host/orders/9")
    }

    @Test func aStatusWithoutARegisteredReasonIsItsNumberAlone() async throws {
        let requester = await shop()
        await requester.register("http://host/odd") { request in
            ResourceResponse(status: 299, url: request.url, body: Data())
        }
        let odd = try await ResourceManager(requester: requester).send(.put, to: URL(string: "http://host/odd")!)
        #expect("\(odd)" == "299 PUT http://host/odd", "the same on every platform, not Foundation's localized text")
    }

    @Test func chainsAndFormsDescribeTheirResponsesTheSameWay() async throws {
        let manager = ResourceManager(requester: await shop())
        let root = URL(string: "http://host/")!
        let sent = try await manager.entry(root).follow("orders").send(.post)
        #expect("\(sent)" == "201 Created POST http://host/orders → Location http://host/orders/9")
        let resource = try await manager.document(at: root)
        let submitted = try await manager.submit(try #require(resource.forms.default), of: resource)
        #expect("\(submitted)" == "201 Created POST http://host/orders → Location http://host/orders/9")
    }
}
