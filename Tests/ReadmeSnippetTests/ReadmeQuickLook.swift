// swift-format-ignore-file
// README.md's "Quick look" and "Typed models" blocks, verbatim between `// snippet` and
// `// end snippet` (SnippetSyncTests holds them to the README). Everything else is
// scaffolding. This file imports nothing but what the blocks import, so the blocks compile
// as a reader would paste them. Each block's first line, which builds a manager with the
// default requester, is compiled on its own; the rest of the block takes the manager as a parameter, so that
// ReadmeSnippetTests runs it against the sample API the README names (`Fixtures/api`). The
// functions are `@MainActor`, as in an app: the blocks must compile there too.

// snippet README.md "Quick look"
import Foundation
import Halley

// end snippet

@MainActor func readmeQuickLookManager() -> ResourceManager {
    // snippet README.md "Quick look"
    let manager = ResourceManager()   // the default requester: libcurl on Linux, URLSession elsewhere
    // end snippet
    return manager
}

@MainActor func readmeQuickLook(manager: ResourceManager) async throws -> (websiteOfFirstContact: JSONValue?, typed: Contact) {
    // snippet README.md "Quick look"

    // Untyped: the root with every included relationship merged in, as a JSONValue.
    let contact = try await manager.resource(
        from: URL(string: "https://api.example.com/contacts/1")!,
        includes: ["[contacts].website", "website"])
    let websiteOfFirstContact = contact["contacts"]?[0]?["website"]?["url"]

    // Typed: your Codable models, decoded once from the merged document.
    let typed = try await manager.request(
        HalleyRequest<Contact>(url: "https://api.example.com/contacts/1",
                               includeType: .contactsAndWebsiteOfContacts))
    let typedWebsite = typed.contacts?.first?.website?.url
    // end snippet
    _ = typedWebsite
    return (websiteOfFirstContact, typed)
}

// snippet README.md "Typed models"
struct Website: HalleyCodable { let _links: Links?; let id: Int; let url: URL }

struct Contact: HalleyCodable {
    let _links: Links?
    let id: Int
    let name: String
    let contacts: [Contact]?
    let website: Website?
    enum CodingKeys: String, CodingKey, IncludeKey { case _links, id, name, contacts, website }
}

extension Contact: IncludableType {
    enum IncludeType { case full, contacts, website, contactsOfContacts, contactsAndWebsiteOfContacts }
}

extension Contact.IncludeType: IncludeTypeInterface {
    typealias IncludeCodingKey = Contact.CodingKeys
    @IncludesBuilder<IncludeCodingKey>
    func prepareIncludes() -> [IncludeField] {
        switch self {
        case .full:            ToMany(.contacts); ToOne(.website)
        case .contacts:        ToMany(.contacts)
        case .website:         ToOne(.website)
        case .contactsOfContacts:
            Nested(Contact.self, including: .contacts, at: .contacts, toMany: true)
        case .contactsAndWebsiteOfContacts:
            Nested(Contact.self, including: .full, at: .contacts, toMany: true)
            ToOne(.website)
        }
    }
}

// end snippet

@MainActor func readmeTypedModelsManager() -> ResourceManager {
    // snippet README.md "Typed models"
    let manager = ResourceManager()
    // end snippet
    return manager
}

@MainActor func readmeTypedModels(manager: ResourceManager) async throws -> Contact {
    // snippet README.md "Typed models"
    let contact = try await manager.request(
        HalleyRequest<Contact>(url: "https://api.example.com/contacts/1",
                               includeType: .contactsAndWebsiteOfContacts,
                               queryItems: [], decoder: JSONDecoder()))
    // end snippet
    return contact
}
