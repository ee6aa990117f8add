// swift-format-ignore-file
// TestingWithInMemoryAndFileRequesters.md's Swift blocks, verbatim between `// snippet` and
// `// end snippet` (SnippetSyncTests holds them to the article). The article's example test
// is a real test of this target. Everything else is scaffolding.
import Foundation
import Halley
import Testing

// snippet TestingWithInMemoryAndFileRequesters.md "Canned documents"
@Test func contactShowsItsWebsite() async throws {
    let requester = InMemoryRequester()
    await requester.register("https://api.example.com/contacts/1", json: [
        "_links": ["self": ["href": "/contacts/1"], "website": ["href": "/websites/1"]],
        "name": "Ada Lovelace",
    ])
    await requester.register("https://api.example.com/websites/1", json: [
        "_links": ["self": ["href": "/websites/1"]],
        "url": "https://ada.example.com",
    ])
    let manager = ResourceManager(requester: requester)

    let contact = try await manager.resource(
        from: URL(string: "https://api.example.com/contacts/1")!, includes: ["website"])

    #expect(contact["website"]?["url"] == "https://ada.example.com")
    #expect(await requester.requestCount == 2)
    #expect(await requester.requests.first?.headers["Accept"]?.hasPrefix("application/hal+json") == true)
}
// end snippet

@MainActor func testingScripted() async throws -> (HALResource, InMemoryRequester) {
    // snippet TestingWithInMemoryAndFileRequesters.md "Scripted"
    let requester = InMemoryRequester()
    let attempts = Attempts()
    await requester.register("https://api.example.com/status") { request in
        let attempt = await attempts.next()
        let status = attempt == 1 ? 503 : 200
        return ResourceResponse(status: status, headers: ["Content-Type": "application/hal+json"],
                                url: request.url, body: Data(#"{"healthy":true}"#.utf8))
    }
    var configuration = ResourceManager.Configuration()
    configuration.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(1))
    let manager = ResourceManager(requester: requester, configuration: configuration)
    let status = try await manager.document(at: URL(string: "https://api.example.com/status")!)
    // one 503, one retry, then the document
    // end snippet
    return (status, requester)
}

@MainActor func testingEvents(manager: ResourceManager) async throws -> [RequestRecord] {
    // snippet TestingWithInMemoryAndFileRequesters.md "Events"
    let (events, continuation) = AsyncStream.makeStream(of: HalleyEvent.self)
    var options = CallOptions()
    options.observer = { event in continuation.yield(event) }
    _ = try await manager.resource(from: URL(string: "https://api.example.com/status")!, options: options)
    continuation.finish()

    var finished: [RequestRecord] = []
    for await event in events {
        if case .requestFinished(let record) = event { finished.append(record) }
    }
    // end snippet
    return finished
}

/// The article's test sits beside its own `Fixtures/api` folder, which this target does not
/// have: the manager is compiled on its own, and the request runs with one over the
/// repository's `Fixtures/api` (ArticleSnippetTests).
func testingFixtureManager() -> ResourceManager {
    // snippet TestingWithInMemoryAndFileRequesters.md "Fixture files"
    let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures/api")
    let manager = ResourceManager(requester: FileRequester(directory: fixtures))
    // end snippet
    return manager
}

@MainActor func testingFixtureFiles(manager: ResourceManager) async throws -> Contact {
    // snippet TestingWithInMemoryAndFileRequesters.md "Fixture files"
    let ada = try await manager.request(
        HalleyRequest<Contact>(url: "https://api.example.com/contacts/1", includeType: .contactsWithWebsites))
    // end snippet
    return ada
}
