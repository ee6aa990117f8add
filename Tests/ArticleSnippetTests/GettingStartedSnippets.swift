// swift-format-ignore-file
// GettingStarted.md's Swift blocks, verbatim between `// snippet` and `// end snippet`
// (SnippetSyncTests holds them to the article). Everything else is scaffolding; the
// functions that take a manager run against Fixtures/api in ArticleSnippetTests.

// snippet GettingStarted.md "Make a manager"
import Foundation
import Halley

// end snippet

func gettingStartedManager() {
    // snippet GettingStarted.md "Make a manager"
    let manager = ResourceManager()
    // end snippet
    _ = manager
}

@MainActor func gettingStartedFetch(manager: ResourceManager) async throws -> (String?, String?, String?) {
    // snippet GettingStarted.md "Fetch"
    let ada = try await manager.resource(
        from: URL(string: "https://api.example.com/contacts/1")!,
        includes: ["[contacts].website", "website"])

    let name = ada["name"]?.stringValue                                    // "Ada Lovelace"
    let site = ada["website"]?["url"]?.stringValue                         // "https://ada.example.com"
    let gracesSite = ada["contacts"]?[0]?["website"]?["url"]?.stringValue  // "https://grace.example.com"
    // end snippet
    return (name, site, gracesSite)
}

@MainActor func gettingStartedDecode(manager: ResourceManager) async throws -> (URL?, String?, String, String?) {
    // snippet GettingStarted.md "Decode"
    struct Site: Decodable {
        let url: URL
    }

    struct Person: Decodable {
        let name: String
        let email: String?
        let website: Site?
        let contacts: [Person]?
    }

    let person = try await manager.request(
        HalleyRequest<Person>(url: "https://api.example.com/contacts/1",
                              includes: ["website", "[contacts].website"]))
    let gracesWebsite = person.contacts?.first?.website?.url  // https://grace.example.com
    // end snippet

    // snippet GettingStarted.md "Without includes"
    let grace = try await manager.request(HalleyRequest<Person>(url: "https://api.example.com/contacts/2"))
    let alan = try await manager.request(
        HalleyRequest<Person>(url: "https://api.example.com/contacts/{id}", variables: ["id": 3]))
    let ada = try await manager.request(HalleyRequest<Person>(url: URL(string: "https://api.example.com/contacts/1")!))
    // end snippet
    return (gracesWebsite, grace.website?.url.absoluteString, alan.name, ada.email)
}

func gettingStartedOffline() {
    // snippet GettingStarted.md "Offline"
    let offline = ResourceManager(requester: FileRequester(directory: URL(fileURLWithPath: "Fixtures/api")))
    // end snippet
    _ = offline
}

@MainActor func gettingStartedFailure(manager: ResourceManager) async throws -> HalleyError? {
    // snippet GettingStarted.md "Failure"
    do {
        _ = try await manager.resource(
            from: URL(string: "https://api.example.com/contacts/2")!, includes: ["manager"])
    } catch let error as HalleyError {
        print(error.code, error.includePath ?? "(root)", error.url?.absoluteString ?? "", error.httpError?.status ?? 0)
        // http manager https://api.example.com/contacts/99 404
        // end snippet
        return error
        // snippet GettingStarted.md "Failure"
    }
    // end snippet
    return nil
}

import Observation  // the app target block's `@Observable`

// snippet GettingStarted.md "App target"
nonisolated struct Member: Decodable, Sendable {
    let name: String
}

@Observable final class MemberScreen {
    var name = ""

    func load(_ manager: ResourceManager) async throws {
        let member = try await manager.request(HalleyRequest<Member>(url: "https://api.example.com/contacts/1"))
        name = member.name  // on the main actor again; the request and the decoding were not
    }
}
// end snippet
