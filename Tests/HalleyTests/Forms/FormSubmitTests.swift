import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// Submitting templates in memory: bodies, queries, targets, defaults, content types,
/// credentials, linked options, negotiation and follow chains.
@Suite struct FormSubmitTests {
    /// What an echo route saw.
    struct Echo: Decodable, Equatable {
        let method: String
        let url: String
        let contentType: String?
        let accept: String?
        let authorization: String?
        let body: String
    }

    /// Answers every URL in `urls` by echoing the request as JSON.
    private func echo(_ urls: [String], into requester: InMemoryRequester) async {
        for url in urls {
            await requester.register(url) { request in
                let echo: JSONValue = [
                    "method": .string(request.method.rawValue),
                    "url": .string(request.url.absoluteString),
                    "contentType": request.headers["Content-Type"].map { .string($0) } ?? .null,
                    "accept": request.headers["Accept"].map { .string($0) } ?? .null,
                    "authorization": request.headers["Authorization"].map { .string($0) } ?? .null,
                    "body": .string(request.body.map { String(decoding: $0, as: UTF8.self) } ?? ""),
                ]
                return ResourceResponse(
                    status: request.method == .post ? 201 : 200,
                    headers: ["Content-Type": "application/json", "Location": "/created/1"], url: request.url,
                    body: echo.serialized())
            }
        }
    }

    private func fixture(_ name: String, url: String? = nil) throws -> HALResource {
        try HALResource(parsing: Fixture.data("hal-forms/\(name)"), url: url.flatMap(URL.init(string:)))
    }

    private func manager(_ requester: InMemoryRequester, token: String? = nil) -> ResourceManager {
        var configuration = ResourceManager.Configuration()
        if let token { configuration.headers = ["Authorization": "Bearer \(token)"] }
        return ResourceManager(requester: requester, configuration: configuration)
    }

    @Test func jsonBodyInPropertyOrderWithDefaultsAndTheWrittenContentType() async throws {
        let requester = InMemoryRequester()
        await echo(["https://tasks.example.org/lists/7/tasks"], into: requester)
        let task = try fixture("spec-task.json", url: "https://tasks.example.org/lists/7")
        var options = CallOptions()
        options.variables = ["list": "7"]
        let response = try await manager(requester).submit(
            task.forms.default!, of: task,
            values: ["tags": ["urgent", "call"], "title": "Order the tiles", "effort": 2.5, "assignee": .null],
            options: options)
        #expect(response.status == 201)
        #expect(response.location == URL(string: "https://tasks.example.org/created/1"))
        let echo = try response.decode(Echo.self)
        #expect(echo.method == "POST")
        #expect(echo.url == "https://tasks.example.org/lists/7/tasks", "the target resolves against the resource")
        #expect(echo.contentType == "application/json")
        #expect(
            echo.body
                == #"{"title":"Order the tiles","listId":"7","effort":2.5,"tags":["urgent","call"],"#
                + #""source":"https://tasks.example.org/lists/7"}"#,
            "the template's order; read-only and templated defaults filled in; absent ones left out")
    }

    @Test func selectedValuesAndDefaultsFillWhatTheCallerLeavesOut() async throws {
        let requester = InMemoryRequester()
        await echo(["https://api.example.com/defaults"], into: requester)
        let resource = try HALResource(json: [
            "_links": ["self": ["href": "https://api.example.com/defaults"]],
            "_templates": [
                "default": [
                    "method": "PUT", "contentType": "application/merge-patch+json; charset=utf-8",
                    "properties": [
                        ["name": "one", "options": ["inline": ["a", "b"], "selectedValues": ["b"]]],
                        [
                            "name": "single",
                            "options": ["inline": ["a", "b"], "selectedValues": ["b"], "maxItems": 1],
                        ],
                        ["name": "many", "options": ["inline": ["a", "b"], "selectedValues": ["a"], "maxItems": 2]],
                        ["name": "both", "options": ["inline": ["a", "b"], "selectedValues": ["a", "b"]]],
                        ["name": "plain", "value": 3],
                    ],
                ]
            ],
        ])
        let echo = try await manager(requester).submit(resource.forms.default!, of: resource).decode(Echo.self)
        #expect(echo.method == "PUT", "no target: the resource's self")
        #expect(
            echo.contentType == "application/merge-patch+json; charset=utf-8", "+json types are JSON, sent as written")
        #expect(
            echo.body == #"{"one":["b"],"single":"b","many":["a"],"both":["a","b"],"plain":3}"#,
            "selectedValues are an array unless maxItems is 1; no maxItems is unbounded")
    }

    @Test func formEncodedBodiesFollowTheURLStandard() async throws {
        let requester = InMemoryRequester()
        await echo(["https://tasks.example.org/quick"], into: requester)
        let search = try fixture("spec-search.json")
        let echo = try await manager(requester).submit(
            search.forms.default!, of: search, values: ["title": "Buy tiles & grout 100%", "labels": ["home", "café"]]
        ).decode(Echo.self)
        #expect(echo.method == "POST")
        #expect(echo.contentType == "application/x-www-form-urlencoded")
        #expect(echo.body == "title=Buy+tiles+%26+grout+100%25&labels=home&labels=caf%C3%A9")
    }

    @Test func getAndDeleteCarryTheValuesInTheQuery() async throws {
        let requester = InMemoryRequester()
        await echo(
            [
                "https://tasks.example.org/tasks?view=compact&q=tiles+%2B+grout&size=20",
                "https://tasks.example.org/tasks?view=compact",
            ], into: requester)
        let search = try fixture("spec-search.json")
        let found = try await manager(requester).submit(
            search.forms["search"]!, of: search, values: ["q": "tiles + grout"]
        )
        .decode(Echo.self)
        #expect(found.method == "GET")
        #expect(
            found.url == "https://tasks.example.org/tasks?view=compact&q=tiles+%2B+grout&size=20",
            "appended to the target's own query")
        #expect(found.body.isEmpty)
        #expect(found.contentType == nil)
        let purged = try await manager(requester).submit(search.forms["purge"]!, of: search).decode(Echo.self)
        #expect(purged.method == "DELETE")
        #expect(purged.url == "https://tasks.example.org/tasks?view=compact", "no values: the URL untouched")
    }

    @Test func invalidValuesAndUnwritableContentTypesSendNothing() async throws {
        let requester = InMemoryRequester()
        await echo(["http://shop.example.com/orders/118"], into: requester)
        let order = try fixture("spring-order.json")
        await #expect {
            try await manager(requester).submit(order.forms.default!, of: order, values: ["quantity": 0, "extra": 1])
        } throws: { error in
            guard let error = error as? HalleyError, let failures = error.formValidationError else { return false }
            return error.code == .formValidation && failures.properties == ["item", "quantity", "extra"]
                && failures.failures.map(\.rule) == [.required, .min, .undeclared]
                && error.url == URL(string: "http://shop.example.com/orders/118")
                && error.description.contains("quantity: 0 is less than the minimum 1 (min)")
        }
        let upload = try fixture("unsupported-content-type.json")
        await #expect {
            try await manager(requester).submit(upload.forms.default!, of: upload, values: ["file": "x"])
        } throws: { error in
            (error as? HalleyError)?.code == .unsupportedContentType
                && (error as? HalleyError)?.message.contains("multipart/form-data") == true
        }
        #expect(await requester.requestCount == 0, "nothing was sent")

        _ = try await manager(requester).submit(
            order.forms.default!, of: order, values: ["item": "Oak desk", "quantity": 2])
        #expect(await requester.requestCount == 1)
    }

    @Test func credentialsStayOnTheResourcesOriginWhateverTheTarget() async throws {
        let requester = InMemoryRequester()
        await echo(["https://api.example.com/here", "https://elsewhere.example.net/there"], into: requester)
        func resource(target: String) throws -> HALResource {
            try HALResource(
                json: [
                    "_links": ["self": ["href": "/things/1"]],
                    "_templates": ["default": ["method": "post", "target": .string(target)]],
                ], url: URL(string: "https://api.example.com/things/1"))
        }
        let manager = manager(requester, token: "secret")
        let here = try resource(target: "/here")
        #expect(
            try await manager.submit(here.forms.default!, of: here).decode(Echo.self).authorization == "Bearer secret")
        let there = try resource(target: "https://elsewhere.example.net/there")
        let echo = try await manager.submit(there.forms.default!, of: there).decode(Echo.self)
        #expect(echo.authorization == nil, "the target's origin is not trusted with the credentials")
        #expect(echo.url == "https://elsewhere.example.net/there")
    }

    @Test func theTargetIsTheSelfLinkOrTheDocumentsURLButNeverAGuess() async throws {
        let requester = InMemoryRequester()
        await echo(["https://api.example.com/plain", "https://api.example.com/items/3"], into: requester)
        let manager = manager(requester)
        let noSelf = try HALResource(
            json: ["_templates": ["default": ["method": "put"]]], url: URL(string: "https://api.example.com/plain"))
        #expect(try await manager.submit(noSelf.forms.default!, of: noSelf).decode(Echo.self).url.hasSuffix("/plain"))

        let parent = try HALResource(
            json: [
                "_links": ["self": ["href": "/list"]],
                "_embedded": [
                    "item": [
                        ["_links": ["self": ["href": "/items/3"]], "_templates": ["default": ["method": "delete"]]],
                        ["_templates": ["default": ["method": "delete"]]],
                    ]
                ],
            ], url: URL(string: "https://api.example.com/list"))
        let items = parent.embedded.resources(for: "item")
        let echo = try await manager.submit(items[0].forms.default!, of: items[0]).decode(Echo.self)
        #expect(echo.url == "https://api.example.com/items/3")
        await #expect {
            try await manager.submit(items[1].forms.default!, of: items[1])
        } throws: { error in
            (error as? HalleyError)?.code == .missingRelation
        }
        #expect(await requester.count(for: "https://api.example.com/list") == 0, "never the embedding resource")
    }

    @Test func linkedOptionsAreFetchedThroughThePipelineAndEnforced() async throws {
        let requester = InMemoryRequester()
        await echo(["https://tasks.example.org/lists/7/tasks"], into: requester)
        await requester.register(
            "https://tasks.example.org/people",
            json: [["fullName": "Ada Byron", "login": "ada"], ["fullName": "Alan Turing", "login": "alan"]])
        await requester.register(
            "https://tasks.example.org/people?q=al", json: [["fullName": "Alan Turing", "login": "alan"]])
        let task = try fixture("spec-task.json", url: "https://tasks.example.org/lists/7")
        let manager = manager(requester, token: "t")
        let assignee = try #require(task.forms.default?.property(named: "assignee"))

        let everyone = try await manager.options(for: assignee, of: task)
        #expect(everyone.map(\.prompt) == ["Ada Byron", "Alan Turing"])
        #expect(everyone.map(\.value) == ["ada", "alan"])
        #expect(try await manager.options(for: assignee, of: task, variables: ["q": "al"]).map(\.value) == ["alan"])
        let inline = try #require(task.forms.default?.property(named: "tags"))
        #expect(try await manager.options(for: inline, of: task).count == 4, "inline options need no request")
        #expect(await requester.requestCount == 2)

        await #expect {
            try await manager.submit(task.forms.default!, of: task, values: ["title": "Call", "assignee": "grace"])
        } throws: { error in
            (error as? HalleyError)?.formValidationError?.failures.map(\.rule) == [.options]
        }
        _ = try await manager.submit(task.forms.default!, of: task, values: ["title": "Call", "assignee": "ada"])
        let fetches = await requester.requests.filter { $0.url.path == "/people" }
        #expect(fetches.count == 4)
        #expect(fetches.allSatisfy { $0.headers["Authorization"] == "Bearer t" }, "same origin as the resource")
        #expect(fetches.allSatisfy { $0.headers["Accept"] == "application/json" }, "the link's type")

        await requester.resetCounts()
        _ = try await manager.submit(task.forms.default!, of: task, values: ["title": "Call"])
        #expect(await requester.requestedURLs == ["https://tasks.example.org/lists/7/tasks"], "no value: no fetch")
    }

    @Test func linkedOptionsAskForTheLinksTypeElseJSON() async throws {
        let requester = InMemoryRequester()
        await requester.register("https://api.example.com/sizes", json: ["S", "M"])
        await requester.register("https://api.example.com/sizes/typed", json: ["S", "M"])
        await requester.register("https://api.example.com/sizes/odd", json: ["S", "M"])
        await requester.register("https://api.example.com/orders", json: ["ok": true])
        let resource = try HALResource(json: [
            "_links": ["self": ["href": "https://api.example.com/orders"]],
            "_templates": [
                "default": [
                    "method": "post",
                    "properties": [
                        ["name": "plain", "options": ["link": ["href": "/sizes"]]],
                        [
                            "name": "typed",
                            "options": [
                                "link": ["href": "/sizes/typed", "type": "application/vnd.example.sizes+json"]
                            ],
                        ],
                        [
                            "name": "odd",
                            "options": ["link": ["href": "/sizes/odd", "type": "sizes\r\nX-Injected: 1"]],
                        ],
                    ],
                ]
            ],
        ])
        let manager = ResourceManager.over(requester) { $0.acceptsForms = true }
        let form = try #require(resource.forms.default)
        for property in form.properties {
            #expect(try await manager.options(for: property, of: resource).map(\.value) == ["S", "M"])
        }
        _ = try await manager.submit(form, of: resource, values: ["plain": "S", "typed": "M", "odd": "S"])
        func accepts(_ path: String) async -> [String?] {
            await requester.requests.filter { $0.url.path == path }.map { $0.headers["Accept"] }
        }
        #expect(await accepts("/sizes") == ["application/json", "application/json"], "no type: application/json")
        #expect(await accepts("/sizes/typed") == Array(repeating: "application/vnd.example.sizes+json", count: 2))
        #expect(await accepts("/sizes/odd") == ["application/json", "application/json"], "a type no header can carry")
        #expect(
            await accepts("/orders")
                == ["application/prs.hal-forms+json, application/hal+json, application/json;q=0.9, */*;q=0.1"],
            "the submission itself keeps the call's Accept")
    }

    @Test func membersOfTheWrongTypeNoLongerCostTheTemplate() async throws {
        let requester = InMemoryRequester()
        await echo(["https://shop.example.com/orders"], into: requester)
        await requester.register("https://shop.example.com/delivery-options", json: ["standard", "express"])
        let basket = try fixture("wrong-member-types.json")
        let form = try #require(basket.forms.default)
        let manager = manager(requester)
        await #expect {
            try await manager.submit(form, of: basket, values: ["basket": "13", "delivery": "by drone"])
        } throws: { error in
            (error as? HalleyError)?.formValidationError?.failures.map(\.rule) == [.required, .readOnly, .options]
        }
        let echo = try await manager.submit(
            form, of: basket, values: ["email": "ada@example.org", "delivery": "express"]
        ).decode(Echo.self)
        #expect(echo.url == "https://shop.example.com/orders")
        #expect(
            echo.body == #"{"email":"ada@example.org","basket":"12","delivery":"express","size":["M"]}"#,
            "maxItems \"one\" is ignored: the selection is unbounded, so an array")
        let fetches = await requester.requests.filter { $0.url.path == "/delivery-options" }
        #expect(fetches.count == 2)
        #expect(fetches.allSatisfy { $0.headers["Accept"] == "application/json" })
    }

    @Test func theFirstTemplateIsTheDefaultWhenNoneIsKeyedSo() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            "https://notes.example.org/", json: ["_links": ["note": ["href": "/notes/5"]]])
        let note = try Fixture.data("hal-forms/no-default-template.json")
        await requester.register("https://notes.example.org/notes/5") { request in
            request.method == .get
                ? ResourceResponse(url: request.url, body: note)
                : ResourceResponse(status: 204, url: request.url, body: Data())
        }
        let manager = manager(requester)
        let chain = manager.entry("https://notes.example.org/").follow("note")
        #expect(try await chain.form().get().key == "edit")
        let edited = try await chain.form().submit(values: ["text": "Buy tiles"])
        #expect(edited.status == 204)
        let put = try #require(await requester.requests.last)
        #expect(put.method == .put)
        #expect(put.url.absoluteString == "https://notes.example.org/notes/5")
        #expect(put.body.map { String(decoding: $0, as: UTF8.self) } == #"{"text":"Buy tiles"}"#)
    }

    @Test func linkedOptionsMayBeAHALCollectionWithDottedFields() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            "https://api.example.com/countries",
            json: [
                "_links": ["self": ["href": "/countries"]],
                "_embedded": [
                    "countries": [
                        ["name": "Iceland", "_links": ["self": ["href": "https://api.example.com/countries/is"]]],
                        ["name": "Norway", "_links": ["self": ["href": "https://api.example.com/countries/no"]]],
                    ]
                ],
            ])
        await requester.register("https://api.example.com/empty", json: ["_links": ["self": ["href": "/empty"]]])
        await requester.register("https://api.example.com/broken", json: [["name": "no value"]])
        await requester.register("https://api.example.com/scalar", json: "just text")
        func property(_ href: String) throws -> HALFormProperty {
            try HALFormProperty(json: [
                "name": "country",
                "options": ["link": ["href": .string(href)], "promptField": "name", "valueField": "_links.self.href"],
            ])
        }
        let resource = try HALResource(json: ["_links": ["self": ["href": "https://api.example.com/form"]]])
        let manager = manager(requester)
        let countries = try await manager.options(for: try property("/countries"), of: resource)
        #expect(countries.map(\.prompt) == ["Iceland", "Norway"])
        #expect(
            countries.map(\.value) == ["https://api.example.com/countries/is", "https://api.example.com/countries/no"])
        #expect(try await manager.options(for: try property("/empty"), of: resource).isEmpty)
        for broken in ["/broken", "/scalar"] {
            await #expect {
                try await manager.options(for: try property(broken), of: resource)
            } throws: { error in
                (error as? HalleyError)?.code == .invalidDocument
            }
        }
        #expect(try await manager.options(for: try HALFormProperty(json: ["name": "x"]), of: resource).isEmpty)
    }

    @Test func encodableValuesAreCheckedInTheirEncodedForm() async throws {
        struct Order: Encodable {
            let item: String
            let quantity: Int
            let note: String?
        }
        let requester = InMemoryRequester()
        await echo(["http://shop.example.com/orders/118"], into: requester)
        let order = try fixture("spring-order.json")
        let manager = manager(requester)
        let echo = try await manager.submit(
            order.forms.default!, of: order, value: Order(item: "Oak desk", quantity: 2, note: nil)
        ).decode(Echo.self)
        #expect(echo.body == #"{"item":"Oak desk","quantity":2,"number":"2024-118"}"#)
        await #expect {
            try await manager.submit(
                order.forms.default!, of: order, value: Order(item: "Oak desk", quantity: 11, note: "x"))
        } throws: { error in
            (error as? HalleyError)?.formValidationError?.failures.map(\.rule) == [.max, .undeclared]
        }
        await #expect(throws: EncodingError.self) {
            try await manager.submit(order.forms.default!, of: order, value: [1, 2])
        }
    }

    @Test func theAcceptHeaderAsksForFormsOnlyWhenTold() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            "https://api.example.com/", json: ["_links": ["self": ["href": "/"], "next": ["href": "/next"]]])
        await requester.register("https://api.example.com/next", json: ["_links": ["self": ["href": "/next"]]])
        let root = URL(string: "https://api.example.com/")!
        func accept(configuration: Bool?, call: Bool?) async throws -> String? {
            var settings = ResourceManager.Configuration()
            settings.acceptsForms = configuration
            var options = CallOptions()
            options.acceptsForms = call
            await requester.resetCounts()
            _ = try await ResourceManager(requester: requester, configuration: settings).resource(
                from: root, includes: ["next"], options: options)
            let accepts = Set(await requester.requests.map { $0.headers["Accept"] ?? "" })
            #expect(accepts.count == 1, "every request of the call asks the same")
            return accepts.first
        }
        let forms = "application/prs.hal-forms+json, application/hal+json, application/json;q=0.9, */*;q=0.1"
        let plain = "application/hal+json, application/json;q=0.9, */*;q=0.1"
        #expect(try await accept(configuration: nil, call: nil) == plain)
        #expect(try await accept(configuration: nil, call: true) == forms)
        #expect(try await accept(configuration: true, call: nil) == forms)
        #expect(try await accept(configuration: true, call: false) == plain, "the call's choice wins")
        #expect(try await accept(configuration: false, call: true) == forms)
    }

    @Test func followChainsEndInAForm() async throws {
        let requester = InMemoryRequester()
        await requester.register(
            "https://shop.example.com/", json: ["_links": ["self": ["href": "/"], "order": ["href": "/orders/118"]]])
        let order = Data(
            String(decoding: try Fixture.data("hal-forms/spring-order.json"), as: UTF8.self)
                .replacingOccurrences(of: "http://shop.example.com", with: "https://shop.example.com").utf8)
        await requester.register("https://shop.example.com/orders/118") { request in
            request.method == .get
                ? ResourceResponse(url: request.url, body: order)
                : ResourceResponse(status: 204, url: request.url, body: Data())
        }
        let lock = LockedValue<[String]>([])
        var options = CallOptions()
        options.observer = { event in
            if case .requestStarted(let record) = event { lock.withLock { $0.append(record.method.rawValue) } }
        }
        let manager = manager(requester)
        let chain = manager.entry("https://shop.example.com/", options: options).follow("order")
        let form = try await chain.form().get()
        #expect(form.method == .put)
        #expect(try await chain.form("partiallyUpdateOrder").get().method == .patch)
        let accepts = await requester.requests.map { $0.headers["Accept"] ?? "" }
        #expect(accepts.allSatisfy { $0.hasPrefix("application/prs.hal-forms+json") }, "every hop asks for forms")

        let response = try await chain.form("partiallyUpdateOrder").submit(values: ["quantity": 2])
        #expect(response.status == 204)
        let patch = try #require(await requester.requests.last)
        #expect(patch.method == .patch)
        #expect(patch.body.map { String(decoding: $0, as: UTF8.self) } == #"{"quantity":2}"#)
        struct Item: Encodable { let item: String }
        #expect(try await chain.form("partiallyUpdateOrder").submit(Item(item: "Oak desk")).status == 204)
        #expect(lock.get().contains("PATCH"), "submissions emit the usual events")

        await #expect {
            try await chain.form("cancel").submit()
        } throws: { error in
            (error as? HalleyError)?.code == .missingForm
                && (error as? HalleyError)?.message.contains("default, partiallyUpdateOrder") == true
        }
    }
}
