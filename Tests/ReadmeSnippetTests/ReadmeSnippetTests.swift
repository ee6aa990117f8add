import Foundation
import Halley
import Testing

/// Runs the README's blocks, the quick look and the typed models, against the sample API they
/// name (`Fixtures/api`, through `FileRequester`).
@Suite(.serialized) struct ReadmeSnippetTests {
    /// The first run of a newcomer: the typed example's models decode the sample API (its ids
    /// are numbers; models declaring `id: String` were a decoding error).
    @Test func theTypedModelsDecodeTheSampleAPI() async throws {
        let ada = try await readmeTypedModels(manager: SampleAPI.fixtureManager())
        #expect(ada.id == 1)
        #expect(ada.name == "Ada Lovelace")
        #expect(ada.website?.id == 1)
        #expect(ada.website?.url.absoluteString == "https://ada.example.com")
        #expect(ada._links?.selfLink?.href == "/contacts/1")
        let contacts = try #require(ada.contacts)
        #expect(contacts.map(\.id) == [2, 3])
        #expect(contacts.map(\.name) == ["Grace Hopper", "Alan Turing"])
        #expect(
            contacts.map { $0.website?.url.absoluteString } == [
                "https://grace.example.com", "https://alan.example.com",
            ])
        // `.full` on each contact: Grace's contacts (Ada again), Alan's empty array.
        #expect(contacts[0].contacts?.map(\.name) == ["Ada Lovelace"])
        #expect(contacts[1].contacts?.isEmpty == true)
    }

    @Test func theQuickLookRunsAgainstTheSampleAPI() async throws {
        let (website, typed) = try await readmeQuickLook(manager: SampleAPI.fixtureManager())
        #expect(website == "https://grace.example.com")
        #expect(typed.contacts?.first?.website?.url.absoluteString == "https://grace.example.com")
        #expect(typed.website?.id == 1)
    }

    @Test func theTypedModelsIncludeListIsTheStringList() throws {
        let plan = try Contact.IncludeType.contactsAndWebsiteOfContacts.includePlan()
        #expect(plan == (try IncludePlan(["[contacts]", "[contacts].[contacts]", "[contacts].website", "website"])))
    }
}
