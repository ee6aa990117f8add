// swift-format-ignore-file
// TestingYourHALClientCode.md's Swift blocks, verbatim between `// snippet` and
// `// end snippet` (SnippetSyncTests holds them to the article). The article's tests are real
// tests of this target; the socket block is compiled only (this target opens no sockets;
// HalleyEndToEndTests' StubServerTests cover the server).
import Foundation
import Halley
import HalleyTesting
import Testing

// snippet TestingYourHALClientCode.md "Code under test"
struct TeamDirectory {
    struct Member: Decodable, Sendable {
        let name: String
        let website: Website?
    }
    struct Website: Decodable, Sendable {
        let url: String
    }

    let manager: ResourceManager
    let root: URL

    func members() async throws -> [Member] {
        try await manager.entry(root).follow("team").items(Member.self, includes: ["website"]).collect()
    }
}
// end snippet

// snippet TestingYourHALClientCode.md "Declaring"
func teamAPI() -> StubAPI {
    let api = StubAPI()
    api.resource("/", StubResource().link("team", "/team"))
    let members = ["Ada", "Grace", "Linus"].enumerated().map { index, name in
        api.resource("/people/\(index)", StubResource(["name": .string(name)]).link("website", "/sites/\(index)"))
    }
    for index in members.indices {
        api.resource("/sites/\(index)", StubResource(["url": .string("https://site\(index).example")]))
    }
    api.collection("/team", items: members, pageSize: 2)
    return api
}
// end snippet

// snippet TestingYourHALClientCode.md "App test"
@Test func theDirectoryListsEveryMemberWithTheirWebsite() async throws {
    let api = teamAPI()
    let directory = TeamDirectory(
        manager: ResourceManager(requester: api.requester), root: URL(string: "https://api.example.test/")!)

    let members = try await directory.members()

    #expect(members.map(\.name) == ["Ada", "Grace", "Linus"])
    #expect(members.map(\.website?.url) == ["https://site0.example", "https://site1.example", "https://site2.example"])
    // The entry point, two pages and three websites: the members came embedded in the pages.
    #expect(api.requests.count == 6)
    #expect(api.requests(to: "/team?page=1&size=2").count == 1)
    #expect(api.requests(to: "/people/0").isEmpty)
}
// end snippet

// snippet TestingYourHALClientCode.md "Faults"
@Test func aFailingWebsiteFailsTheList() async throws {
    let api = teamAPI()
    api.fault("/sites/1", .status(500))
    let directory = TeamDirectory(
        manager: ResourceManager(requester: api.requester), root: URL(string: "https://api.example.test/")!)

    let error = await #expect(throws: HalleyError.self) { try await directory.members() }

    #expect(error?.httpError?.status == 500)
    #expect(api.requestLines.contains("GET /sites/1"))
}
// end snippet

// CurlRequester is macOS's and Linux's: libcurl is not part of the other Apple platforms.
@available(iOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
func teamOverSocket() async throws -> ([TeamDirectory.Member], String?) {
    // snippet TestingYourHALClientCode.md "Socket"
    let api = teamAPI()
    let server = try api.serve()                   // a free port; stops when `server` is released
    let directory = TeamDirectory(manager: ResourceManager(requester: try CurlRequester()), root: server.url("/"))
    let members = try await directory.members()
    let accept = api.requests.first?.headers["Accept"]   // what the transport sent
    // end snippet
    return (members, accept)
}

// snippet TestingYourHALClientCode.md "Recording"
@Test func recordedFixturesReplayOffline() async throws {
    let fixtures = FileManager.default.temporaryDirectory.appendingPathComponent("team-\(UUID())")
    defer { try? FileManager.default.removeItem(at: fixtures) }
    let api = teamAPI()
    api.recordFixtures(into: fixtures)
    let root = URL(string: "https://api.example.test/")!
    _ = try await TeamDirectory(manager: ResourceManager(requester: api.requester), root: root).members()

    let offline = TeamDirectory(manager: ResourceManager(requester: FileRequester(directory: fixtures)), root: root)
    #expect(try await offline.members().map(\.name) == ["Ada", "Grace", "Linus"])
}
// end snippet
