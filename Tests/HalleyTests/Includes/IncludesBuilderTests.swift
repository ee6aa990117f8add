import Foundation
import Testing

@testable import Halley
@testable import HalleyHAL
@testable import HalleyTransport

@Suite struct IncludesBuilderTests {
    @Test func typedAndStringIncludesCompileToIdenticalPlans() throws {
        let typed = try Contact.IncludeType.contactsAndWebsiteOfContacts.includePlan()
        let strings = try IncludePlan(paths: ["[contacts]", "[contacts].[contacts]", "[contacts].website", "website"])
        #expect(typed == strings)
        #expect(typed.paths == ["[contacts]", "[contacts].[contacts]", "[contacts].website", "website"])
        #expect(
            try Contact.IncludeType.contactsOfContacts.includePlan() == IncludePlan(paths: ["[contacts].[contacts]"]))
    }

    @Test func typedAndStringIncludesSendIdenticalRequests() async throws {
        let (typedManager, typedRequester) = TypedFixtures.manager("links-only")
        let (stringManager, stringRequester) = TypedFixtures.manager("links-only")
        let url = "https://api.example.com/contacts/1"
        let typed = try await typedManager.request(
            HalleyRequest<Contact>(url: url, includeType: .contactsAndWebsiteOfContacts))
        let strings = try await stringManager.request(
            HalleyRequest<Contact>(
                url: url, includes: ["[contacts]", "[contacts].[contacts]", "[contacts].website", "website"]))
        #expect(await typedRequester.paths.sorted() == stringRequester.paths.sorted())
        #expect(typed.contacts?.map(\.id) == strings.contacts?.map(\.id))
    }

    enum Flavor { case plain, withWebsite, withEverything }

    @IncludesBuilder<Contact.CodingKeys>
    func includes(_ flavor: Flavor, optional: Contact.CodingKeys?, extra: [Contact.CodingKeys]) -> [IncludeField] {
        ToMany(.contacts)
        if flavor == .withWebsite {
            ToOne(.website)
        } else if flavor == .withEverything {
            Nested(Contact.self, including: .full, at: .contacts, toMany: true)
        }
        switch flavor {
        case .plain: ToOne(.website, queryItems: [FieldQueryItem(name: "fields", value: "url")])
        default: []
        }
        if let optional { ToOne(optional) }
        for key in extra { ToMany(key) }
    }

    @Test func theBuilderHandlesIfElseSwitchOptionalsAndLoops() throws {
        let plain = try IncludePlan(fields: includes(.plain, optional: nil, extra: []))
        #expect(plain.paths == ["[contacts]", "website"])
        #expect(plain.children.last?.queryItems == [URLQueryItem(name: "fields", value: "url")])

        let website = try IncludePlan(fields: includes(.withWebsite, optional: nil, extra: []))
        #expect(website.paths == ["[contacts]", "website"])

        let everything = try IncludePlan(fields: includes(.withEverything, optional: nil, extra: []))
        #expect(everything.paths == ["[contacts]", "[contacts].[contacts]", "[contacts].website"])

        let looped = try IncludePlan(fields: includes(.withEverything, optional: ._links, extra: [.name, .id]))
        #expect(looped.paths.suffix(3) == ["_links", "[name]", "[id]"])

        #expect(throws: IncludePathError.self) {
            try IncludePlan(fields: includes(.withEverything, optional: .contacts, extra: []))
        }
    }

    @Test func stringKeysAndIncludeFieldsFromPaths() throws {
        @IncludesBuilder<String>
        func build() -> [IncludeField] {
            ToMany("ex:orders", variables: ["page": 1])
            Nested(Contact.self, including: .website, at: "owner")
        }
        let plan = try IncludePlan(fields: build())
        #expect(plan.paths == ["[ex:orders]", "owner", "owner.website"])
        #expect(plan.children.first?.variables == ["page": 1])
        #expect(try IncludeField(path: "[a].b").paths == ["[a].b"])
    }
}
