import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

@Suite struct ActionTests {
    let base = Graph.base

    /// Echoes each request back as a HAL document, with a Location for POST.
    private func echoServer() async -> InMemoryRequester {
        let requester = InMemoryRequester()
        await requester.register(base + "/orders") { request in
            let body = request.body.map { String(decoding: $0, as: UTF8.self) } ?? ""
            let echo: JSONValue = [
                "_links": ["self": ["href": "/orders/42"]],
                "method": .string(request.method.rawValue),
                "contentType": request.headers["Content-Type"].map { .string($0) } ?? .null,
                "body": .string(body),
            ]
            let status = request.method == .post ? 201 : (request.method == .delete ? 204 : 200)
            return ResourceResponse(
                status: status, headers: status == 201 ? ["Location": "/orders/42"] : [:],
                url: request.url, body: status == 204 ? Data() : echo.serialized())
        }
        return requester
    }

    struct Order: Codable, Sendable, Equatable {
        let item: String
        let quantity: Int
    }
    struct Echo: Decodable {
        let method: String
        let contentType: String?
        let body: String
    }

    @Test(arguments: [RequestMethod.post, .put, .patch])
    func eachMethodWithEachBodyKind(method: RequestMethod) async throws {
        let manager = ResourceManager(requester: await echoServer())
        let url = Graph.url("/orders")
        let bodies: [(RequestBody, String?, String)] = [
            (.none, nil, ""),
            (.text("hello"), "text/plain; charset=utf-8", "hello"),
            (.data(Data([0x41, 0x42]), contentType: "application/octet-stream"), "application/octet-stream", "AB"),
            (.json(["item": "book"]), "application/json", #"{"item":"book"}"#),
            (try .encodable(Order(item: "pen", quantity: 2)), "application/json", ""),
        ]
        for (body, contentType, expected) in bodies {
            let echo = try await manager.send(method, to: url, body: body, decoding: Echo.self)
            #expect(echo.method == method.rawValue)
            #expect(echo.contentType == contentType)
            if case .data(let data, "application/json") = body {
                #expect(
                    try JSONDecoder().decode(Order.self, from: Data(echo.body.utf8)) == Order(item: "pen", quantity: 2))
                #expect(data.isEmpty == false)
            } else {
                #expect(echo.body == expected)
            }
        }
    }

    @Test func postGivesTheLocationAndTheResourceAndDeleteGivesNothing() async throws {
        let manager = ResourceManager(requester: await echoServer())
        let created = try await manager.send(.post, to: Graph.url("/orders"), body: .json(["item": "book"]))
        #expect(created.status == 201)
        #expect(created.location == Graph.url("/orders/42"))
        #expect(try created.resource()?.links.selfLink?.href == "/orders/42")
        let deleted = try await manager.send(.delete, to: Graph.url("/orders"))
        #expect(deleted.status == 204)
        #expect(try deleted.resource() == nil)
        #expect(throws: HalleyError.self) { try deleted.decode(Echo.self) }
    }

    @Test func actionsFollowARelOfAFetchedResourceWithTemplates() async throws {
        let requester = await echoServer()
        await requester.register(
            base + "/basket",
            json: Graph.resource(
                "/basket",
                links: [
                    "ea:order": Graph.link("/orders{?express}", ["templated": true]),
                    "ea:pay": Graph.link("https://payments.example.net/pay"),
                ]))
        await requester.register("https://payments.example.net/pay", json: ["paid": true])
        await requester.register(base + "/orders?express=true") { request in
            ResourceResponse(status: 202, url: request.url, body: Data())
        }
        let manager = ResourceManager.over(requester) { $0.headers = ["Authorization": "Bearer secret"] }
        let basket = try await manager.document(at: Graph.url("/basket"))
        var options = CallOptions()
        options.variables = ["express": true]
        let accepted = try await manager.send(
            .post, rel: "ea:order", of: basket, body: .json(["item": "book"]), options: options)
        #expect(accepted.status == 202)

        _ = try await manager.send(.post, rel: "ea:pay", of: basket)
        let requests = await requester.requests
        #expect(
            requests.first { $0.url.host == "api.example.com" && $0.method == .post }?.headers["Authorization"]
                == "Bearer secret")
        #expect(
            requests.first { $0.url.host == "payments.example.net" }?.headers["Authorization"] == nil,
            "a rel pointing at another origin does not get the credentials")

        await #expect {
            try await manager.send(.post, rel: "ea:refund", of: basket)
        } throws: { error in
            guard let error = error as? HalleyError else { return false }
            return error.code == .missingRelation && error.message.contains("ea:order")
                && error.message.contains("ea:pay")
        }
    }

    @Test func actionErrorsAreTypedWithProblemDetails() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            base + "/orders",
            InMemoryRequester.Route(
                status: 422, headers: ["Content-Type": "application/problem+json"],
                body: Data(#"{"title": "Invalid order", "detail": "quantity must be positive", "status": 422}"#.utf8)))
        await #expect {
            try await ResourceManager(requester: requester).send(
                .post, to: Graph.url("/orders"), body: .json(["quantity": -1]))
        } throws: { error in
            guard let error = error as? HalleyError, let http = error.httpError else { return false }
            return http.status == 422 && http.problem?["detail"] == "quantity must be positive"
                && error.description.contains("Invalid order: quantity must be positive")
        }
    }
}
