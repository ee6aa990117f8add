import Foundation
import Halley
import HalleyTestSupport

// The example, verbatim: code written for the original Halley compiles unchanged.

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
        case .full:
            ToMany(.contacts)
            ToOne(.website)
        case .contacts: ToMany(.contacts)
        case .website: ToOne(.website)
        case .contactsOfContacts:
            Nested(Contact.self, including: .contacts, at: .contacts, toMany: true)
        case .contactsAndWebsiteOfContacts:
            Nested(Contact.self, including: .full, at: .contacts, toMany: true)
            ToOne(.website)
        }
    }
}

/// Counts requests on the way to another requester.
actor CountingRequester: ResourceRequester {
    let base: any ResourceRequester & Sendable
    private(set) var paths: [String] = []

    init(_ base: any ResourceRequester & Sendable) { self.base = base }

    nonisolated var supportedSchemes: Set<String> { base.supportedSchemes }

    func response(for request: ResourceRequest) async throws -> ResourceResponse {
        var path = request.url.path
        if let query = request.url.query { path += "?" + query }
        paths.append(path)
        return try await base.response(for: request)
    }
}

enum TypedFixtures {
    static func manager(_ scenario: String, configuration: ResourceManager.Configuration = .init())
        -> (ResourceManager, CountingRequester)
    {
        let requester = CountingRequester(FileRequester(directory: Fixture.url("typed/\(scenario)")))
        return (ResourceManager(requester: requester, configuration: configuration), requester)
    }
}
