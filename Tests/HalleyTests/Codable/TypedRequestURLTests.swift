import Foundation
import Halley
import Testing

/// `HalleyRequest(url: URL(...))`, as `resource(from:)` takes a `URL` as well as a string.
@Suite struct TypedRequestURLTests {
    let contactURL = URL(string: "https://api.example.com/contacts/1")!

    @Test func aRequestWithANamedIncludeListTakesAURL() async throws {
        let (manager, requester) = TypedFixtures.manager("links-only")
        let request = HalleyRequest<Contact>(url: contactURL, includeType: .contactsAndWebsiteOfContacts)
        #expect(request.url == "https://api.example.com/contacts/1")
        let contact = try await manager.request(request)
        #expect(contact.name == "Contact 1")
        #expect(contact.contacts?.map(\.id) == ["2", "3"])
        #expect(contact.contacts?.map { $0.website?.id } == ["w2", "w3"])
        #expect(contact.website?.id == "w1")
        #expect(await requester.paths.count == 6)
    }

    @Test func aRequestWithIncludePathsOrFieldsTakesAURL() async throws {
        let (manager, requester) = TypedFixtures.manager("links-only")
        let included = try await manager.request(HalleyRequest<Contact>(url: contactURL, includes: ["website"]))
        #expect(included.website?.id == "w1")
        #expect(included.contacts == nil)
        let fields = try await manager.request(
            HalleyRequest<Contact>(url: contactURL, includeFields: Contact.IncludeType.contacts.prepareIncludes()))
        #expect(fields.contacts?.map(\.name) == ["Contact 2", "Contact 3"])
        #expect(fields.website == nil)
        let bare = try await manager.request(HalleyRequest<Contact>(url: contactURL))
        #expect(bare.name == "Contact 1")
        let paths = await requester.paths
        #expect(paths.filter { $0 == "/contacts/1" }.count == 3, "each call starts at the URL")
        #expect(Set(paths) == ["/contacts/1", "/websites/1", "/contacts/2", "/contacts/3"])
    }

    /// Setting `url` gives the request a new start, read as a template as any string is.
    @Test func settingTheURLTextStartsThereAsATemplate() async throws {
        let (manager, requester) = TypedFixtures.manager("links-only")
        var request = HalleyRequest<Contact>(url: contactURL, variables: ["id": "2"])
        request.url = "https://api.example.com/contacts/{id}"
        let contact = try await manager.request(request)
        #expect(contact.name == "Contact 2")
        #expect(await requester.paths == ["/contacts/2"])
    }
}
