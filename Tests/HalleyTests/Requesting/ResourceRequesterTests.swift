import Foundation
import HalleyTestSupport
import Testing

@testable import Halley

/// `ResourceRequester`, the protocol new requesters implement: one requirement, which the
/// compiler checks, and the manager's whole public API over it.
@Suite struct ResourceRequesterTests {
    /// The one requirement and nothing else: the in-memory contact graph behind a type that is
    /// not a `RequesterInterface`, counting what it is asked.
    struct Forwarding: ResourceRequester, Sendable {
        let base: InMemoryRequester
        let asked = LockedValue<[URL]>([])

        func response(for request: ResourceRequest) async throws -> ResourceResponse {
            asked.withLock { $0.append(request.url) }
            return try await base.response(for: request)
        }
    }

    /// Sets what it may: the settings with defaults are its own to override.
    struct Strict: ResourceRequester, Sendable {
        var supportedSchemes: Set<String> { ["https"] }
        var enforcesRequestTimeout: Bool { true }
        func response(for request: ResourceRequest) async throws -> ResourceResponse {
            ResourceResponse(
                status: 200, headers: ["Content-Type": "application/hal+json"], url: request.url, body: Data("{}".utf8))
        }
    }

    @Test func aManagerOverAResourceRequesterTraversesAndDecodes() async throws {
        let requester = Forwarding(base: await Graph.contacts())
        let manager = ResourceManager(requester: requester)

        let contact = try await manager.resource(from: Graph.url("/contacts/1"), includes: ["[contacts].website"])
        #expect(contact["name"] == "Contact 1")
        #expect(contact["contacts"]?[0]?["website"]?["url"] == "https://site2.example")
        #expect(contact["contacts"]?[1]?["website"]?["url"] == "https://site3.example")
        // Contacts 1, 2, 3 and the websites of 2 and 3, each once.
        #expect(Set(requester.asked.get()).count == 5)
        #expect(requester.asked.get().count == 5)

        struct Website: Decodable, Equatable {
            let id: String
            let url: String
        }
        let website = try await manager.request(HalleyRequest<Website>(url: Graph.url("/websites/1")))
        #expect(website == Website(id: "w1", url: "https://site1.example"))

        let document = try await manager.document(at: Graph.url("/contacts/3"))
        #expect(document.links["website"].first?.href == "/websites/3")
    }

    @Test func anExistentialResourceRequesterIsTakenToo() async throws {
        let requester: any ResourceRequester & Sendable = Forwarding(base: await Graph.contacts())
        let document = try await ResourceManager(requester: requester).document(at: Graph.url("/contacts/2"))
        #expect(document.state["name"] == "Contact 2")
    }

    /// `resourceRequester` is the value given; `requester` keeps its type, as a view that
    /// forwards every member and answers the completion call it cannot make with the typed error.
    @Test func theManagerKeepsTheRequesterAndAViewOfItAsTheOriginalProtocol() async throws {
        let manager = ResourceManager(requester: Strict())
        #expect(manager.resourceRequester is Strict)
        let view: any RequesterInterface = manager.requester
        #expect(view.supportedSchemes == ["https"])
        #expect(view.enforcesRequestTimeout)
        let answered = try await view.response(for: ResourceRequest(url: Graph.url("/")))
        #expect(answered.body == Data("{}".utf8))

        let completion = await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
            _ = view.requestResource(at: Graph.url("/")) { result in
                if case .failure(let error) = result {
                    continuation.resume(returning: error)
                } else {
                    continuation.resume(returning: nil)
                }
            }
        }
        let unimplemented = try #require(completion as? UnimplementedRequesterError)
        #expect(unimplemented.requester.hasSuffix("Strict"))
    }

    /// The engine reads the settings from the requester it was given: `Strict` refuses `http`.
    @Test func theEngineHonoursAResourceRequestersSettings() async throws {
        let manager = ResourceManager(requester: Strict())
        await #expect(throws: HalleyError.self) {
            _ = try await manager.document(at: URL(string: "http://api.example.com/")!)
        }
        _ = try await manager.document(at: URL(string: "https://api.example.com/")!)
    }

    @Test func theSettingsDefaultAsDocumented() {
        let bare: any ResourceRequester = Strict.Bare()
        #expect(bare.supportedSchemes == ["http", "https"])
        #expect(bare.enforcesRequestTimeout == false)
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            #expect(bare.preferredTaskExecutor == nil)
        }
    }

    /// A `RequesterInterface` (here Halley's own, which are both) is stored as it is, under
    /// both properties, so `manager.requester is URLSessionRequester` holds as in 0.2.0.
    @Test func aRequesterInterfaceIsStoredAsItIs() {
        let manager = ResourceManager(requester: FileRequester(directory: Fixture.url("hal")))
        #expect(manager.requester is FileRequester)
        #expect(manager.resourceRequester is FileRequester)
        let builtIns: [any RequesterInterface & Sendable] = [
            URLSessionRequester(), InMemoryRequester(), FileRequester(directory: Fixture.url("hal")),
        ]
        #expect(builtIns.count == 3)
    }
}

extension ResourceRequesterTests.Strict {
    /// Implements the requirement only.
    struct Bare: ResourceRequester {
        func response(for request: ResourceRequest) async throws -> ResourceResponse {
            ResourceResponse(status: 204, headers: [:], url: request.url, body: Data())
        }
    }
}
