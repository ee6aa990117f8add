// swift-format-ignore-file
// README.md's "Follow chains and paginated enumeration" blocks, verbatim between
// `// snippet` and `// end snippet` (SnippetSyncTests holds them to the README). The
// parameters and the lines after each block are scaffolding; ReadmeSnippetTests runs the
// functions against SampleAPI.
import Foundation
import Halley

@MainActor func readmeFollowChains(manager: ResourceManager, rootURL: URL) async throws -> (PaginationPage<Contact>, Contact) {
    // snippet README.md "Follow chains"
    let page = try await manager.entry("https://api.example.com/")
        .follow("ex:contacts", ["page": 0])
        .follow("next")
        .page(of: Contact.self)                       // PaginationPage<Contact>

    let bob = try await manager.entry(rootURL).follow("ex:contact", ["id": "2"])
        .get(Contact.self, includes: ["website"])     // or .get(), .resource(), .url()
    _ = try await manager.entry(rootURL).follow("ex:contact", ["id": "9"]).send(.delete)  // last hop not fetched
    // end snippet
    return (page, bob)
}

// snippet README.md "SDK wrapper"
struct ContactsAPI {
    let root: FollowChain                          // manager.entry("https://api.example.com/")
    var contacts: FollowChain { root.follow("ex:contacts", ["page": 0]) }
    func contact(id: Int) -> FollowChain { root.follow("ex:contact", ["id": id]) }
}
// end snippet

@MainActor func readmeSDKWrapper(api: ContactsAPI) async throws -> Contact {
    // snippet README.md "SDK wrapper"
    let contact = try await api.contact(id: 7).get(Contact.self)
    // end snippet
    return contact
}

@MainActor func readmePagedItems(manager: ResourceManager, url: URL) async throws -> (names: [String], firstTen: [Contact], all: [Contact], tenth: Contact?, slice: [Contact]) {
    var names: [String] = []
    // snippet README.md "Paginated enumeration"
    for try await contact in manager.items(Contact.self, from: "https://api.example.com/contacts{?page,size}",
                                           variables: ["size": 20], includes: ["website"]) {
        print(contact.name)
        // end snippet
        names.append(contact.name)
        // snippet README.md "Paginated enumeration"
    }
    let firstTen = try await manager.items(Contact.self, from: url).prefix(10).reduce(into: []) { $0.append($1) }
    let all = try await manager.items(Contact.self, from: url).limited(toPages: 5).collect()
    let tenth = try await manager.items(Contact.self, from: url).item(at: 9)
    let slice = try await manager.items(Contact.self, from: url).items(in: 20..<40)
    // end snippet
    return (names, firstTen, all, tenth, slice)
}
