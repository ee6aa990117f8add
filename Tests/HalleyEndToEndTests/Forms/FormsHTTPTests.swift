import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// HAL-FORMS over real HTTP against the loopback test server (`HalleyTestSupport/TestServer.swift`):
/// negotiation, JSON, form-encoded and query submissions, linked options, credentials.
@Suite struct FormsHTTPTests {
    /// What `/echo` reported.
    struct Echo: Decodable {
        let method: String
        let target: String
        let contentType: String?
        let body: String
        let headers: [String: String]
    }

    private func formsOptions() -> CallOptions {
        var options = CallOptions()
        options.acceptsForms = true
        return options
    }

    @Test func theServerSendsTemplatesOnlyWhenAskedForThem() async throws {
        let server = try await TestServer.shared()
        let manager = ResourceManager(requester: URLSessionRequester())
        let marker = UUID().uuidString
        let withForms = try await manager.document(
            at: server.url("/negotiate?forms=\(marker)"), options: formsOptions())
        #expect(withForms.forms.default?.method == .put)
        let plain = try await manager.document(at: server.url("/negotiate?plain=\(marker)"))
        #expect(plain.forms.isEmpty)
        #expect(plain.state["name"] != nil)

        let seen = try await server.requests(containing: marker)
        #expect(
            seen.first { $0.path.contains("forms=") }?.headers["accept"]
                == "application/prs.hal-forms+json, application/hal+json, application/json;q=0.9, */*;q=0.1")
        #expect(
            seen.first { $0.path.contains("plain=") }?.headers["accept"]
                == "application/hal+json, application/json;q=0.9, */*;q=0.1")
    }

    @Test func aJSONSubmissionWithLinkedOptionsReachesTheServer() async throws {
        let server = try await TestServer.shared()
        let manager = ResourceManager(requester: URLSessionRequester())
        let board = try await manager.document(at: server.url("/forms/board"), options: formsOptions())
        let form = try #require(board.forms.default)
        let owner = try #require(form.property(named: "owner"))
        #expect(
            try await manager.options(for: owner, of: board).map(\.prompt) == [
                "Ada Byron", "Alan Turing", "Grace Hopper",
            ])
        #expect(try await manager.options(for: owner, of: board, variables: ["q": "gr"]).map(\.value) == ["grace"])

        let marker = String(UUID().uuidString.prefix(8))
        let response = try await manager.submit(
            form, of: board,
            values: ["title": .string("Ship \(marker)"), "points": 5, "owner": "grace", "colour": "blue"])
        #expect(response.status == 201)
        #expect(response.location == server.url("/echo/created"))
        let echo = try response.decode(Echo.self)
        #expect(echo.method == "POST")
        #expect(echo.target == "/echo/cards")
        #expect(echo.contentType == "application/json")
        #expect(
            try JSONValue(parsing: Data(echo.body.utf8))
                == [
                    "title": .string("Ship \(marker)"), "points": 5, "boardId": "board-1", "owner": "grace",
                    "colour": "blue",
                ])

        await #expect {
            try await manager.submit(form, of: board, values: ["title": "x", "owner": "linus", "colour": "mauve"])
        } throws: { error in
            (error as? HalleyError)?.formValidationError?.failures.map(\.property) == ["owner", "colour"]
        }
    }

    @Test func formEncodedAndQuerySubmissions() async throws {
        let server = try await TestServer.shared()
        let manager = ResourceManager(requester: URLSessionRequester())
        let board = try await manager.document(at: server.url("/forms/board"), options: formsOptions())

        let renamed = try await manager.submit(
            board.forms["rename"]!, of: board, values: ["title": "Release 2.0 / final", "labels": ["a b", "ç"]]
        ).decode(Echo.self)
        #expect(renamed.method == "PATCH")
        #expect(renamed.contentType == "application/x-www-form-urlencoded")
        #expect(renamed.body == "title=Release+2.0+%2F+final&labels=a+b&labels=%C3%A7")

        let marker = UUID().uuidString
        let found = try await manager.submit(board.forms["search"]!, of: board, values: ["q": .string(marker)]).decode(
            Echo.self)
        #expect(found.method == "GET")
        #expect(found.target == "/echo/cards?view=short&q=\(marker)&page=0")
        #expect(found.body.isEmpty)

        await #expect {
            try await manager.submit(board.forms["upload"]!, of: board, values: ["file": .string(marker)])
        } throws: { error in
            (error as? HalleyError)?.code == .unsupportedContentType
        }
        #expect(try await server.requests(containing: "attachments").allSatisfy { !$0.path.contains(marker) })
    }

    @Test func aTemplateWithMembersOfTheWrongTypeIsSubmittedAsTheDraftReadsIt() async throws {
        let server = try await TestServer.shared()
        let manager = ResourceManager(requester: URLSessionRequester())
        let order = try await manager.document(at: server.url("/forms/lenient"), options: formsOptions())
        let form = try #require(order.forms.default, "kept, with its problems recorded")
        #expect(
            order.problems.map(\.path) == [
                "$._templates.default.properties[0].required", "$._templates.default.properties[1].readOnly",
                "$._templates.default.properties[2].options.link.templated",
                "$._templates.default.properties[2].options.maxItems",
            ])
        #expect(order.problems.allSatisfy { $0.templateKey == "default" })

        let marker = "a" + String(UUID().uuidString.prefix(8)).lowercased() + "@example.org"
        let response = try await manager.submit(
            form, of: order, values: ["email": .string(marker), "delivery": "express", "colour": "teal"])
        #expect(response.status == 201)
        let echo = try response.decode(Echo.self)
        #expect(echo.target == "/echo/orders")
        #expect(
            try JSONValue(parsing: Data(echo.body.utf8))
                == [
                    "email": .string(marker), "basket": "b-12", "delivery": "express", "colour": "teal",
                    "extras": ["card"],
                ],
            "selectedValues without maxItems travel as an array")

        // Each options list was asked for with its link's type (application/json without one).
        let deliveries = try await server.requests(containing: "/forms/deliveries")
        #expect(!deliveries.isEmpty)
        #expect(deliveries.allSatisfy { $0.headers["accept"] == "application/json" }, "\(deliveries)")
        let shades = try await server.requests(containing: "/forms/shades")
        #expect(!shades.isEmpty)
        #expect(shades.allSatisfy { $0.headers["accept"] == "application/vnd.example.shades+json" }, "\(shades)")
        let board = try await manager.document(at: server.url("/forms/board"), options: formsOptions())
        let colour = try #require(board.forms.default?.property(named: "colour"))
        let colourMarker = UUID().uuidString
        var options = CallOptions()
        options.headers = ["X-Marker": colourMarker]
        #expect(try await manager.options(for: colour, of: board, options: options).count == 3)
        let untyped = try await server.requests().filter { $0.headers["x-marker"] == colourMarker }
        #expect(untyped.map(\.path) == ["/forms/colours"])
        #expect(untyped.first?.headers["accept"] == "application/json", "a link without a type")

        await #expect {
            try await manager.submit(form, of: order, values: ["delivery": "by drone"])
        } throws: { error in
            (error as? HalleyError)?.formValidationError?.failures.map(\.rule) == [.required, .options]
        }
    }

    @Test func preselectedValuesOfAnUnboundedPropertyTravelAsAnArray() async throws {
        let server = try await TestServer.shared()
        let manager = ResourceManager(requester: URLSessionRequester())
        let pizza = try await manager.document(at: server.url("/forms/preselected"), options: formsOptions())
        let echo = try await manager.submit(try pizza.form("default"), of: pizza).decode(Echo.self)
        #expect(echo.target == "/echo/pizzas")
        #expect(echo.body == #"{"toppings":["basil"],"crust":"thin"}"#)
    }

    @Test func withoutADefaultTemplateTheFirstIsSubmitted() async throws {
        let server = try await TestServer.shared()
        let manager = ResourceManager(requester: URLSessionRequester())
        let notes = try await manager.document(at: server.url("/forms/no-default"), options: formsOptions())
        let form = try #require(notes.forms.default)
        #expect(form.key == "write")
        let marker = UUID().uuidString
        let echo = try await manager.submit(form, of: notes, values: ["text": .string(marker)]).decode(Echo.self)
        #expect(echo.target == "/echo/notes")
        #expect(echo.body == #"{"text":"\#(marker)"}"#)
    }

    @Test func credentialsGoToTheResourcesOriginNotTheFormsTarget() async throws {
        let server = try await TestServer.shared()
        let other = try await TestServer.secondary()
        let secret = "s-" + UUID().uuidString
        let manager = ResourceManager.over(URLSessionRequester()) {
            $0.headers = ["Authorization": "Bearer \(secret)", "X-Trace": "kept"]
        }

        let sameOrigin = try await manager.document(at: server.url("/form-to?url=%2Fecho%2Fhere"))
        let here = try await manager.submit(sameOrigin.forms.default!, of: sameOrigin, values: ["note": "hi"])
            .decode(Echo.self)
        #expect(here.headers["authorization"] == "Bearer \(secret)")

        let crossOrigin = try await manager.document(
            at: server.url("/form-to?url=" + TestServer.queryValue(other.url("/echo/there").absoluteString)))
        let there = try await manager.submit(crossOrigin.forms.default!, of: crossOrigin, values: ["note": "hi"])
            .decode(Echo.self)
        #expect(there.target == "/echo/there")
        #expect(there.headers["authorization"] == nil, "the target's origin is not the resource's")
        #expect(there.headers["x-trace"] == "kept", "other headers go everywhere")
        #expect(there.body == #"{"note":"hi"}"#)
    }
}
