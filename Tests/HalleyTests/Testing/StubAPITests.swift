import Foundation
import Halley
import HalleyTesting
import Testing

/// HalleyTesting's declared API served in memory: documents, the request log, pages,
/// faults and recorded fixtures.
@Suite struct StubAPITests {
    static let base = "https://api.example.test"

    struct Contact: Decodable, Sendable, Equatable {
        let name: String
    }

    /// An entry point, three contacts (one embedding another), a collection of them, a form.
    static func contactsAPI() -> StubAPI {
        let api = StubAPI()
        let bob = api.resource("/contacts/2", StubResource(["name": "Bob"]))
        let ann = api.resource(
            "/contacts/1",
            StubResource(["name": "Ann"])
                .link("website", "/websites/1")
                .links("friends", ["/contacts/2", "/contacts/3"])
                .embedding("manager", bob)
                .form(
                    method: .put, target: "/contacts/1",
                    properties: [StubFormProperty("name", required: true, regex: "^[A-Z].*")]))
        let cid = api.resource("/contacts/3", StubResource(["name": "Cid"]))
        api.resource("/websites/1", StubResource(["url": "https://ann.example"]))
        api.resource(
            "/",
            StubResource()
                .link("contacts", "/contacts{?page,size}", templated: true)
                .link("first", "/contacts/1"))
        api.collection("/contacts", items: [ann, bob, cid], pageSize: 2)
        return api
    }

    @Test func aDeclaredResourceIsServedAsHAL() async throws {
        let api = Self.contactsAPI()
        let manager = ResourceManager(requester: api.requester)
        let ann = try await manager.document(at: URL(string: "\(Self.base)/contacts/1")!)
        #expect(ann.links.selfLink?.href == "/contacts/1")
        #expect(ann.links.link(for: "website")?.href == "/websites/1")
        #expect(ann.links.links(for: "friends")?.map(\.href) == ["/contacts/2", "/contacts/3"])
        #expect(ann.json["_embedded"]?["manager"]?["name"]?.stringValue == "Bob")
        let form = try await manager.entry("\(Self.base)/contacts/1").form().get()
        #expect(form.method == .put)
        #expect(form.properties.map(\.name) == ["name"])
        #expect(form.properties.first?.required == true)
    }

    @Test func theLogShowsExactlyTheRequestsATraversalMade() async throws {
        let api = Self.contactsAPI()
        let manager = ResourceManager(requester: api.requester)
        let ann = try await manager.resource(
            from: URL(string: "\(Self.base)/contacts/1")!, includes: ["website", "[friends]", "manager"])
        #expect(ann["website"]?["url"]?.stringValue == "https://ann.example")
        #expect(ann["friends"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Bob", "Cid"])
        // The manager was embedded: no request for it. The three links ran in parallel.
        #expect(api.requestLines.first == "GET /contacts/1")
        #expect(
            Set(api.requestLines) == ["GET /contacts/1", "GET /websites/1", "GET /contacts/2", "GET /contacts/3"])
        #expect(api.requests.count == 4)
        #expect(api.requests(to: "/contacts/2").count == 1)
        api.resetLog()
        #expect(api.requests.isEmpty)
    }

    @Test func aCollectionIsServedPageByPage() async throws {
        let api = Self.contactsAPI()
        let manager = ResourceManager(requester: api.requester)
        let names = try await manager.items(Contact.self, from: "\(Self.base)/contacts").collect().map(\.name)
        #expect(names == ["Ann", "Bob", "Cid"])
        #expect(api.requestLines == ["GET /contacts", "GET /contacts?page=1&size=2"])

        let page = try await manager.requestPage(HalleyRequest<Contact>(url: "\(Self.base)/contacts?page=1&size=2"))
        #expect(page.items == [Contact(name: "Cid")])
        #expect(page.metadata?.totalElements == 3)
        #expect(page.metadata?.totalPages == 2)
        #expect(page.previous?.href == "/contacts?page=0&size=2")
        #expect(page.next == nil)

        // The templated entry link addresses pages directly.
        let viaTemplate = try await manager.entry("\(Self.base)/")
            .follow("contacts", ["page": 0, "size": 3]).page(of: Contact.self)
        #expect(viaTemplate.items.map(\.name) == ["Ann", "Bob", "Cid"])
        #expect(api.requestLines.suffix(2) == ["GET /", "GET /contacts?page=0&size=3"])
    }

    @Test func anUnknownRouteIsA404NamingIt() async throws {
        let api = StubAPI()
        let manager = ResourceManager(requester: api.requester)
        let error = await #expect(throws: HalleyError.self) {
            try await manager.document(at: URL(string: "\(Self.base)/nowhere?x=1")!)
        }
        #expect(error?.httpError?.status == 404)
        #expect(error?.httpError?.problem?.detail == "no route for GET /nowhere?x=1")
        #expect(api.requestLines == ["GET /nowhere?x=1"])
    }

    /// The error a request to `path` of `api` ends with, in memory.
    private func failure(of api: StubAPI, at path: String, _ method: RequestMethod = .get) async -> (any Error)? {
        do {
            _ = try await ResourceManager(requester: api.requester).send(method, to: URL(string: Self.base + path)!)
            return nil
        } catch {
            return error
        }
    }

    @Test func aResourceDeclaredTwiceFailsTheFirstRequestNamingTheRoute() async throws {
        let api = StubAPI()
        api.resource("/orders", StubResource(["n": 1]))
        api.resource("/orders/1", StubResource())
        api.resource("/orders", StubResource(["n": 2]))
        let error = try #require(await failure(of: api, at: "/orders/1"), "any request fails, not only the route's")
        #expect("\(error)".contains("route GET /orders is declared twice"))
        let underlying = try #require((error as? HalleyError)?.underlying as? StubAPIError)
        #expect(underlying.route == "GET /orders")
        #expect(api.requestLines.isEmpty, "nothing was answered")
    }

    @Test func everyWayOfDeclaringARouteCountsAndNamesIt() async throws {
        let cases: [(declare: (StubAPI) -> Void, route: String)] = [
            ({ $0.respond(to: .post, "/orders", with: StubResponse(status: 201)) }, "POST /orders"),
            ({ $0.handle(.post, "/orders") { _ in StubResponse(status: 201) } }, "POST /orders"),
            ({ $0.resource("/contacts", StubResource()) }, "GET /contacts"),
            ({ $0.respond(to: .get, "/contacts", with: StubResponse()) }, "GET /contacts"),
            ({ $0.collection("/contacts", items: []) }, "GET /contacts"),
            ({ $0.resource("/contacts/1", StubResource()) }, "GET /contacts/1"),
        ]
        for (declare, route) in cases {
            let api = StubAPI()
            api.respond(to: .post, "/orders", with: StubResponse(status: 201))
            api.collection("/contacts", items: [])
            api.resource("/contacts/1", StubResource())
            declare(api)
            let error = await failure(of: api, at: "/orders", .post)
            #expect(error.map { "\($0)" }?.contains("route \(route) is declared twice") == true, "\(route)")
        }
    }

    @Test func routesThatDifferInMethodOrQueryAreNotDuplicates() async throws {
        let api = StubAPI()
        api.resource("/orders", StubResource())
        api.respond(to: .post, "/orders", with: StubResponse(status: 201))
        api.respond(to: .head, "/orders", with: StubResponse())
        api.resource("/contacts?page=9", StubResource())
        api.collection("/contacts", items: [])
        #expect(await failure(of: api, at: "/orders", .post) == nil)
        #expect(await failure(of: api, at: "/contacts?page=9") == nil)
    }

    @Test func faultsApplyToTheirRouteAsManyTimesAsDeclared() async throws {
        let api = Self.contactsAPI()
        var configuration = ResourceManager.Configuration()
        configuration.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), jitter: 0)
        let manager = ResourceManager(requester: api.requester, configuration: configuration)
        api.fault("/contacts/1", .status(503), times: 2)
        let ann = try await manager.document(at: URL(string: "\(Self.base)/contacts/1")!)
        #expect(ann.json["name"]?.stringValue == "Ann")
        #expect(api.requestLines == Array(repeating: "GET /contacts/1", count: 3))

        let once = ResourceManager(
            requester: api.requester,
            configuration: {
                var configuration = ResourceManager.Configuration()
                configuration.retryPolicy = .none
                return configuration
            }())
        api.fault("/contacts/2", .retryAfter(status: 429, seconds: 7))
        let limited = await #expect(throws: HalleyError.self) {
            try await once.document(at: URL(string: "\(Self.base)/contacts/2")!)
        }
        #expect(limited?.httpError?.status == 429)
        #expect(limited?.httpError?.headers["Retry-After"] == "7")

        for (path, fault) in [("/contacts/3", StubFault.reset), ("/websites/1", .truncatedBody)] {
            api.fault(path, fault)
            let broken = await #expect(throws: HalleyError.self) {
                try await once.document(at: URL(string: "\(Self.base)\(path)")!)
            }
            #expect(broken?.transportError?.code == .connectionReset)
        }

        api.clearFaults()
        _ = try await once.document(at: URL(string: "\(Self.base)/contacts/3")!)
    }

    @Test func aDelayedRouteStopsWhenItsTaskIsCancelled() async throws {
        let api = Self.contactsAPI()
        api.latency("/contacts/1", .seconds(3600))
        let manager = ResourceManager(requester: api.requester)
        let task = Task { try await manager.document(at: URL(string: "\(Self.base)/contacts/1")!) }
        while api.requests.isEmpty { await Task.yield() }
        task.cancel()
        await #expect(throws: (any Error).self) { try await task.value }
    }

    @Test func actionsAndFormsReachTheirHandlers() async throws {
        let api = Self.contactsAPI()
        api.handle(.put, "/contacts/1") { request in
            StubResponse.json(["name": request.json?["name"] ?? nil], status: 200)
        }
        api.respond(to: .post, "/contacts", with: StubResponse(status: 201, headers: ["Location": "/contacts/4"]))
        let manager = ResourceManager(requester: api.requester)
        let updated = try await manager.entry("\(Self.base)/contacts/1").form().submit(values: ["name": "Anne"])
        #expect(updated.status == 200)
        let put = try #require(api.requests(to: "/contacts/1", method: .put).first)
        #expect(put.json?["name"]?.stringValue == "Anne")

        let created = try await manager.send(
            .post, to: URL(string: "\(Self.base)/contacts")!, body: .json(["name": "Dee"]))
        #expect(created.location?.absoluteString == "\(Self.base)/contacts/4")
        #expect(api.requestLines.suffix(1) == ["POST /contacts"])
    }

    @Test func recordedFixturesServeTheSameTraversalOffline() async throws {
        let api = Self.contactsAPI()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stub-fixtures-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        api.recordFixtures(into: directory)
        let live = try await ResourceManager(requester: api.requester).resource(
            from: URL(string: "\(Self.base)/contacts/1")!, includes: ["website", "[friends]"])
        let pages = try await ResourceManager(requester: api.requester)
            .items(Contact.self, from: "\(Self.base)/contacts").collect()
        api.recordFixtures(into: nil)

        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("contacts/1.json").path))
        #expect(
            FileManager.default.fileExists(atPath: directory.appendingPathComponent("contacts@page=1&size=2.json").path)
        )
        let offline = ResourceManager(requester: FileRequester(directory: directory))
        let replayed = try await offline.resource(
            from: URL(string: "https://elsewhere.example/contacts/1")!, includes: ["website", "[friends]"])
        #expect(replayed == live)
        #expect(try await offline.items(Contact.self, from: "https://elsewhere.example/contacts").collect() == pages)
    }
}
