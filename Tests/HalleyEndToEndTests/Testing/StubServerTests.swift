import Foundation
import Halley
import HalleyTestSupport
import HalleyTesting
import Testing

/// HalleyTesting's declared API on a real loopback socket, through both HTTP transports.
@Suite struct StubServerTests {
    struct Contact: Decodable, Sendable, Equatable {
        let name: String
    }

    static func api() -> StubAPI {
        let api = StubAPI()
        let ann = api.resource("/contacts/1", StubResource(["name": "Ann"]).link("website", "/websites/1"))
        let bob = api.resource("/contacts/2", StubResource(["name": "Bob"]))
        api.resource("/websites/1", StubResource(["url": "https://ann.example"]))
        api.resource("/", StubResource().link("contacts", "/contacts"))
        api.collection("/contacts", items: [ann, bob], pageSize: 1)
        return api
    }

    static func manager(_ transport: Transport, retries: Int = 1) throws -> ResourceManager {
        var configuration = ResourceManager.Configuration()
        configuration.retryPolicy = RetryPolicy(maxAttempts: retries, baseDelay: .milliseconds(1), jitter: 0)
        return ResourceManager(requester: try transport.make(), configuration: configuration)
    }

    @Test(arguments: Transport.allCases)
    func aTraversalOverTheSocketIsLoggedRequestByRequest(_ transport: Transport) async throws {
        let api = Self.api()
        let server = try api.serve()
        #expect(server.baseURL.host == "127.0.0.1")
        let manager = try Self.manager(transport)
        let names = try await manager.entry(server.url("/")).follow("contacts").items(Contact.self).collect()
        #expect(names.map(\.name) == ["Ann", "Bob"])
        #expect(api.requestLines == ["GET /", "GET /contacts", "GET /contacts?page=1&size=1"])
        // The log keeps what the client sent.
        #expect(api.requests.allSatisfy { $0.headers["Host"] == "127.0.0.1:\(server.port)" })

        let ann = try await manager.resource(from: server.url("/contacts/1"), includes: ["website"])
        #expect(ann["website"]?["url"]?.stringValue == "https://ann.example")
        #expect(api.requestLines.suffix(2) == ["GET /contacts/1", "GET /websites/1"])
    }

    @Test(arguments: Transport.allCases)
    func faultsBreakTheConnectionAsARealServerWould(_ transport: Transport) async throws {
        let api = Self.api()
        let server = try api.serve()
        let manager = try Self.manager(transport)
        for (path, fault) in [("/contacts/1", StubFault.reset), ("/contacts/2", .truncatedBody)] {
            api.fault(path, fault)
            let error = await #expect(throws: HalleyError.self) { try await manager.document(at: server.url(path)) }
            #expect(error?.code == .transport, "\(fault): \(String(describing: error))")
        }
        api.fault("/websites/1", .retryAfter(status: 503, seconds: 9))
        let unavailable = await #expect(throws: HalleyError.self) {
            try await manager.document(at: server.url("/websites/1"))
        }
        #expect(unavailable?.httpError?.status == 503)
        #expect(unavailable?.httpError?.headers["Retry-After"] == "9")
    }

    @Test(arguments: Transport.allCases)
    func aFaultForOneRequestIsRetriedPast(_ transport: Transport) async throws {
        let api = Self.api()
        let server = try api.serve()
        api.fault("/contacts/1", .reset, times: 1)
        api.fault("/contacts/2", .status(503), times: 1)
        let manager = try Self.manager(transport, retries: 2)
        #expect(try await manager.document(at: server.url("/contacts/1")).json["name"]?.stringValue == "Ann")
        #expect(try await manager.document(at: server.url("/contacts/2")).json["name"]?.stringValue == "Bob")
        #expect(api.requestLines == ["GET /contacts/1", "GET /contacts/1", "GET /contacts/2", "GET /contacts/2"])
    }

    @Test func aDelayedRouteStillAnswers() async throws {
        let api = Self.api()
        let server = try api.serve()
        api.latency("/contacts/1", .milliseconds(20))
        api.fault("/contacts/1", .delay(.milliseconds(20)), times: 1)
        let manager = try Self.manager(.curl)
        #expect(try await manager.document(at: server.url("/contacts/1")).json["name"]?.stringValue == "Ann")
        #expect(api.requestLines == ["GET /contacts/1"])
    }

    @Test func anAPIWithARouteDeclaredTwiceIsNotServed() async throws {
        let api = Self.api()
        api.resource("/contacts/2", StubResource(["name": "Bob again"]))
        #expect {
            _ = try api.serve()
        } throws: { error in
            "\(error)".contains("route GET /contacts/2 is declared twice")
        }
    }

    @Test func aRouteDeclaredTwiceWhileServingIsAnsweredWithAProblemNamingIt() async throws {
        let api = Self.api()
        let server = try api.serve()
        api.respond(to: .get, "/", with: StubResponse(status: 204))
        let manager = try Self.manager(.curl)
        let error = await #expect(throws: HalleyError.self) {
            try await manager.document(at: server.url("/contacts/1"))
        }
        #expect(error?.httpError?.status == 500)
        #expect(error?.httpError?.problem?.detail?.contains("route GET / is declared twice") == true)
    }

    @Test func theServerStopsWhenReleased() async throws {
        var server: StubServer? = try Self.api().serve()
        let url = try #require(server?.url("/contacts/1"))
        let manager = try Self.manager(.curl)
        _ = try await manager.document(at: url)
        server = nil
        // The listener closes at once: the next connection is refused.
        let error = await #expect(throws: HalleyError.self) { try await manager.document(at: url) }
        #expect(error?.transportError?.code == .connectionRefused)
    }
}
