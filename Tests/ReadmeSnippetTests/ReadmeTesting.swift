// swift-format-ignore-file
// README.md's "Testing your client code" blocks, verbatim between `// snippet` and
// `// end snippet` (SnippetSyncTests holds them to the README). The first is a real test;
// the second runs against the API and directory its scaffolding passes in.
import Foundation
import Halley
import Testing

// snippet README.md "HalleyTesting"
import HalleyTesting

@Test func adaShowsHerWebsite() async throws {
    let api = StubAPI()
    api.resource("/contacts/1", StubResource(["name": "Ada"]).link("website", "/websites/1"))
    api.resource("/websites/1", StubResource(["url": "https://ada.example.com"]))
    let manager = ResourceManager(requester: api.requester)   // in memory: no sockets

    let ada = try await manager.resource(
        from: URL(string: "https://api.example.test/contacts/1")!, includes: ["website"])

    #expect(ada["website"]?["url"] == "https://ada.example.com")
    #expect(api.requestLines == ["GET /contacts/1", "GET /websites/1"])   // exactly these, once each
}
// end snippet

/// Compiled, not run here: it opens a socket (HalleyEndToEndTests' StubServerTests run the
/// same calls). Not on iOS, tvOS or watchOS: libcurl is macOS's and Linux's (and watchOS has
/// no socket server).
@available(iOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
func readmeStubFaults(api: StubAPI, fixtures: URL) async throws {
    // snippet README.md "HalleyTesting faults"
    api.fault("/websites/1", .retryAfter(seconds: 2), times: 1)   // 503 + Retry-After once, then normal
    api.fault("/contacts/2", .reset)                              // also .status, .delay, .truncatedBody
    api.latency("/contacts", .milliseconds(50))
    let server = try api.serve()                                  // http://127.0.0.1:<port>; stops when released
    let overCurl = ResourceManager(requester: try CurlRequester())
    _ = try await overCurl.document(at: server.url("/contacts/1"))
    api.recordFixtures(into: fixtures)                            // answers also written in FileRequester's layout
    // end snippet
}

/// Compiled in main-actor code (as an app calls it), not run: it names api.example.com
/// (ResourceStateSnippets and the State suites run the same calls).
@MainActor func readmeResourceState() async throws {
    // snippet README.md "Resource state"
    var configuration = ResourceManager.Configuration()
    configuration.store = ResourceStore(maximumBytes: 20_000_000)
    let manager = ResourceManager(configuration: configuration)

    let order = manager.resource(at: URL(string: "https://api.example.com/orders/7")!)
    let state = try await order.get()                  // the stored state while fresh, else one request
    _ = try await order.patch(.json(["status": "paid"]), options: WriteOptions(preferRepresentation: true))
    for await event in order.events {                  // updated(state) / stale / deleted
        if case .updated(let latest) = event { print(latest.resource.state["status"] ?? "?", state.etag ?? "") }
        break
    }
    // end snippet
}
