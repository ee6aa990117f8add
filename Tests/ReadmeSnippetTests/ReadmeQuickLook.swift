// swift-format-ignore-file
// README.md's "Quick look" and "Typed models" blocks, verbatim between `// snippet` and
// `// end snippet` (SnippetSyncTests holds them to the README). Everything else is
// scaffolding. This file imports nothing but what the blocks import, so the blocks compile
// as a reader would paste them. They build a `URLSessionRequester`, so they are compiled,
// not run.

// snippet README.md "Quick look"
import Foundation
import Halley

// end snippet

func readmeQuickLook() async throws {
    // snippet README.md "Quick look"
    let manager = ResourceManager(requester: URLSessionRequester())

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
    _ = (websiteOfFirstContact, typedWebsite)
}

// snippet README.md "Typed models"
struct Website: HalleyCodable { let _links: Links?; let id: String; let url: URL }

struct Contact: HalleyCodable {
    let _links: Links?
    let id: String
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

func readmeTypedModels() async throws {
    // snippet README.md "Typed models"
    let manager = ResourceManager(requester: URLSessionRequester())
    let contact = try await manager.request(
        HalleyRequest<Contact>(url: "https://api.example.com/contacts/1",
                               includeType: .contactsAndWebsiteOfContacts,
                               queryItems: [], decoder: JSONDecoder()))
    // end snippet
    _ = contact
}
