// swift-format-ignore-file
// (The original README's text, verbatim: the formatter must not touch it.)
import Foundation
import Halley

// The model and include-list snippets of the original Halley's README
// (`../shared/seeds/halley-README.txt`), verbatim.

// MARK: Model

struct Website: HalleyCodable {
    let _links: Links?

    let id: String
    let url: URL
}

struct Contact: HalleyCodable {
    let _links: Links?

    let id: String
    let name: String
    let contacts: [Contact]?
    let website: Website?

    enum CodingKeys: String, CodingKey, IncludeKey {
        case _links
        case id
        case name
        case contacts
        case website = "webSiteLink"
    }
}

// MARK: Traversal paths - Include list

extension Contact: IncludeableType {

    enum IncludeType {
        case full
        case contacts
        case website
        case contactsOfContacts
        case contactsAndWebsiteOfContacts
    }
}

extension Contact.IncludeType: IncludeTypeInterface {
    typealias IncludeCodingKey = Contact.CodingKeys

    @IncludesBuilder<IncludeCodingKey>
    public func prepareIncludes() -> [IncludeField] {
        switch self {
        case .full:
            ToMany(.contacts)
            ToOne(.website)
        case .contacts:
            ToMany(.contacts)
        case .website:
            ToOne(.website)
        case .contactsOfContacts:
            Nested(Contact.self, including: .contacts, at: .contacts, toMany: true)
        case .contactsAndWebsiteOfContacts:
            Nested(Contact.self, including: .full, at: .contacts, toMany: true)
            ToOne(.website)
        }
    }
}
