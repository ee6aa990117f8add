// swift-format-ignore-file
// TypedModelsAndIncludeLists.md's Swift blocks, verbatim between `// snippet` and
// `// end snippet` (SnippetSyncTests holds them to the article). The models are the ones
// every other article uses. Everything else is scaffolding; ArticleSnippetTests runs the
// functions against Fixtures/api.
import Foundation
import Halley

// snippet TypedModelsAndIncludeLists.md "Models"
struct Website: HalleyCodable {
    let _links: Links?
    let id: Int
    let url: URL
}

struct Avatar: HalleyCodable {
    let size: String
    let url: URL
}

struct Contact: HalleyCodable {
    let _links: Links?
    let id: Int
    let name: String
    let email: String?
    let website: Website?
    let avatar: Avatar?
    let contacts: [Contact]?

    enum CodingKeys: String, CodingKey, IncludeKey {
        case _links, id, name, email, website, avatar, contacts
    }
}
// end snippet

// snippet TypedModelsAndIncludeLists.md "Include lists"
extension Contact: IncludableType {
    enum IncludeType {
        case website
        case contactsWithWebsites
        case profile(avatarSize: String?)
    }
}

extension Contact.IncludeType: IncludeTypeInterface {
    typealias IncludeCodingKey = Contact.CodingKeys

    @IncludesBuilder<IncludeCodingKey>
    func prepareIncludes() -> [IncludeField] {
        switch self {
        case .website:
            ToOne(.website)
        case .contactsWithWebsites:
            ToOne(.website)
            Nested(Contact.self, including: .website, at: .contacts, toMany: true)
        case .profile(let avatarSize):
            ToOne(.website)
            if let avatarSize {
                ToOne(.avatar, variables: ["size": .string(avatarSize)])
            } else {
                ToOne(.avatar)
            }
        }
    }
}
// end snippet

@MainActor func typedModelsFetch(manager: ResourceManager) async throws -> URL? {
    // snippet TypedModelsAndIncludeLists.md "Fetch"
    let ada = try await manager.request(
        HalleyRequest<Contact>(url: "https://api.example.com/contacts/1",
                               includeType: .profile(avatarSize: "small")))
    let avatar = ada.avatar?.url  // https://cdn.example.com/avatars/ada-32.png
    // end snippet
    return avatar
}

func typedModelsThreeWays() throws -> (Bool, HalleyRequest<Contact>, HalleyRequest<Contact>, HalleyRequest<Contact>) {
    // snippet TypedModelsAndIncludeLists.md "Three ways"
    let named = HalleyRequest<Contact>(url: "https://api.example.com/contacts/1",
                                       includeType: .contactsWithWebsites)
    let fields = HalleyRequest<Contact>(url: "https://api.example.com/contacts/1",
                                        includeFields: Contact.IncludeType.contactsWithWebsites.prepareIncludes())
    let paths = HalleyRequest<Contact>(url: "https://api.example.com/contacts/1",
                                       includes: ["website", "[contacts]", "[contacts].website"])
    let samePlan = try named.includePlan() == paths.includePlan()  // true
    // end snippet
    return (samePlan, named, fields, paths)
}

func typedModelsTemplateValues() -> (HalleyRequest<Contact>, HalleyRequest<Contact>) {
    // snippet TypedModelsAndIncludeLists.md "Template values"
    let smallAvatar = HalleyRequest<Contact>(url: "https://api.example.com/contacts/1",
                                             includeType: .profile(avatarSize: nil),
                                             queryItems: [FieldQueryItem(name: "size", value: "small")])
    let defaultAvatar = HalleyRequest<Contact>(url: "https://api.example.com/contacts/1",
                                               includeType: .profile(avatarSize: nil),
                                               variables: ["size": nil])
    // end snippet
    return (smallAvatar, defaultAvatar)
}

func typedModelsDecoding() -> ResourceManager.Configuration {
    // snippet TypedModelsAndIncludeLists.md "Decoding"
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    decoder.dateDecodingStrategy = .iso8601
    var configuration = ResourceManager.Configuration()
    configuration.decoder = decoder
    // end snippet
    return configuration
}
