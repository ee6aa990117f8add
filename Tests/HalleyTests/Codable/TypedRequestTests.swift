import Foundation
import Testing

@testable import Halley

@Suite struct TypedRequestTests {
    let contactURL = "https://api.example.com/contacts/1"

    @Test func theOriginalExampleRunsWithAwait() async throws {
        let (manager, requester) = TypedFixtures.manager("links-only")
        let contact = try await manager.request(
            HalleyRequest<Contact>(
                url: "https://api.example.com/contacts/1",
                includeType: .contactsAndWebsiteOfContacts,
                queryItems: [], decoder: JSONDecoder()))
        #expect(contact.name == "Contact 1")
        #expect(contact.website?.url.absoluteString == "https://contact1.example.com")
        #expect(contact.contacts?.map(\.id) == ["2", "3"])
        #expect(contact.contacts?.map { $0.website?.id } == ["w2", "w3"])
        #expect(contact.contacts?.first?.contacts?.map(\.id) == ["1", "3"])
        #expect(contact.contacts?.first?.contacts?.first?.contacts == nil, "includes stop where the plan stops")
        #expect(contact._links?.link(for: "website")?.href == "/websites/1")
        // Each URL once: contacts 1-3 and websites 1-3.
        let paths = await requester.paths
        #expect(paths.count == 6)
        #expect(Set(paths).count == 6)
    }

    @Test func linkOnlyContactsOfContactsWithACycleTerminate() async throws {
        let (manager, requester) = TypedFixtures.manager("links-only")
        let contact = try await manager.request(
            HalleyRequest<Contact>(url: contactURL, includeType: .contactsOfContacts))
        #expect(contact.contacts?.map { $0.contacts?.map(\.id) ?? [] } == [["1", "3"], ["1"]])
        #expect(contact.website == nil)
        #expect(await requester.paths.sorted() == ["/contacts/1", "/contacts/2", "/contacts/3"])
    }

    @Test func embeddedOnlyCostsNoRequests() async throws {
        let (manager, requester) = TypedFixtures.manager("embedded-only")
        let contact = try await manager.request(
            HalleyRequest<Contact>(url: contactURL, includeType: .contactsAndWebsiteOfContacts))
        #expect(contact.contacts?.map(\.name) == ["Contact 2", "Contact 3"])
        #expect(contact.contacts?.first?.website?.id == "w2")
        #expect(contact.contacts?.last?.website == nil)
        #expect(contact.website?.id == "w1")
        #expect(await requester.paths == ["/contacts/1"])
    }

    @Test func whenBothExistEmbeddedWinsByDefaultAndLinksWinOnRequest() async throws {
        let (manager, requester) = TypedFixtures.manager("both")
        let embedded = try await manager.request(HalleyRequest<Contact>(url: contactURL, includeType: .full))
        #expect(embedded.contacts?.map(\.name) == ["Embedded 2"])
        #expect(embedded.website?.url.absoluteString == "https://embedded.example.com")
        #expect(await requester.paths == ["/contacts/1"])

        var options = CallOptions()
        options.preference = .links
        let linked = try await manager.request(
            HalleyRequest<Contact>(url: contactURL, includeType: .full, options: options))
        #expect(linked.contacts?.map(\.name) == ["Linked 2"])
        #expect(linked.website?.url.absoluteString == "https://linked.example.com")
    }

    @Test func templatedWebsiteUsesTheGlobalProviderAndPerRequestOverrides() async throws {
        let provider = TemplateVariableProvider()
        provider.set("lang", to: "en")
        var configuration = ResourceManager.Configuration()
        configuration.templateVariables = provider
        let (manager, _) = TypedFixtures.manager("templated", configuration: configuration)

        let global = try await manager.request(HalleyRequest<Contact>(url: contactURL, includeType: .website))
        #expect(global.website?.url.absoluteString == "https://contact1.example.com/en")

        let overridden = try await manager.request(
            HalleyRequest<Contact>(url: contactURL, includeType: .website, variables: ["lang": "de"]))
        #expect(overridden.website?.url.absoluteString == "https://contact1.example.com/de")

        let removed = try await manager.request(
            HalleyRequest<Contact>(url: contactURL, includeType: .website, variables: ["lang": nil]))
        #expect(removed.website?.url.absoluteString == "https://contact1.example.com/default")
    }

    @Test func providerClosuresRunPerCallAndMayTouchTheProvider() async throws {
        let provider = TemplateVariableProvider()
        let calls = LockedValue(0)
        provider.set("lang") {
            let count = calls.withLock { value -> Int in
                value += 1
                return value
            }
            // Touching the provider from its own closure must not deadlock.
            provider.set("calls", to: .string("\(count)"))
            return count == 1 ? "en" : "de"
        }
        var configuration = ResourceManager.Configuration()
        configuration.templateVariables = provider
        let (manager, _) = TypedFixtures.manager("templated", configuration: configuration)
        let first = try await manager.request(HalleyRequest<Contact>(url: contactURL, includeType: .website))
        let second = try await manager.request(HalleyRequest<Contact>(url: contactURL, includeType: .website))
        #expect(first.website?.url.lastPathComponent == "en")
        #expect(second.website?.url.lastPathComponent == "de")
        #expect(provider.values()["calls"] != nil)
    }

    @Test func aPageWithMetadataAndNextThenTheLastPage() async throws {
        let (manager, requester) = TypedFixtures.manager("pages")
        let request = HalleyRequest<Contact>(
            url: "https://api.example.com/contacts{?page,size}", includeType: .website,
            variables: ["page": 0, "size": 2])
        let first = try await manager.requestPage(request)
        #expect(first.items.map(\.id) == ["1", "2"])
        #expect(first.items.map { $0.website?.id } == ["w1", "w2"])
        #expect(first.metadata == PageMetadata(size: 2, totalElements: 3, totalPages: 2, number: 0))
        #expect(first.next?.href == "/contacts?page=1&size=2")
        #expect(first.previous == nil)

        let second = try #require(try await manager.nextPage(of: first))
        #expect(second.items.map(\.id) == ["3"])
        #expect(second.items.first?.website?.id == "w3", "the next page keeps the includes")
        #expect(second.metadata?.number == 1)
        #expect(try await manager.nextPage(of: second) == nil)
        let back = try #require(try await manager.previousPage(of: second))
        #expect(back.items.map(\.id) == ["1", "2"])
        #expect(
            await requester.paths.filter { $0.hasPrefix("/contacts") }
                == ["/contacts?page=0&size=2", "/contacts?page=1&size=2", "/contacts?page=0&size=2"])
    }

    @Test func anEmptyCollection() async throws {
        let (manager, _) = TypedFixtures.manager("pages")
        let page = try await manager.requestPage(HalleyRequest<Contact>(url: "https://api.example.com/empty"))
        #expect(page.items.isEmpty)
        #expect(page.metadata?.totalElements == 0)
        #expect(
            try await manager.requestCollection(HalleyRequest<Contact>(url: "https://api.example.com/empty")).isEmpty)
    }

    @Test func aCollectionWhoseItemsAreOnlyLinks() async throws {
        let (manager, _) = TypedFixtures.manager("links-only")
        let contacts = try await manager.requestCollection(
            HalleyRequest<Contact>(url: "https://api.example.com/collection", includeType: .website))
        #expect(contacts.map(\.id) == ["2", "3"])
        #expect(contacts.map { $0.website?.id } == ["w2", "w3"])
    }

    @Test func aMissingRequiredFieldNamesTheJSONPathAndIncludePath() async throws {
        let (manager, _) = TypedFixtures.manager("broken")
        await #expect {
            try await manager.request(HalleyRequest<Contact>(url: contactURL, includeType: .website))
        } throws: { error in
            guard let error = error as? HalleyError else { return false }
            return error.code == .decoding && error.includePath == "website"
                && error.message.contains("$.website.url") && error.message.contains("\"url\"")
                && error.underlying is DecodingError
        }
    }

    @Test func theCallersDecoderStrategiesAreHonoured() async throws {
        struct Event: HalleyCodable {
            let eventName: String
            let startsAt: Date
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        let (manager, _) = TypedFixtures.manager("strategies")
        let event = try await manager.request(
            HalleyRequest<Event>(url: "https://api.example.com/events/1", decoder: decoder))
        #expect(event.eventName == "Launch")
        #expect(event.startsAt == Date(timeIntervalSince1970: 1_795_341_600))
    }

    @Test func stringIncludesWorkForModelsWithoutIncludeTypes() async throws {
        let (manager, _) = TypedFixtures.manager("links-only")
        let contact = try await manager.request(
            HalleyRequest<Contact>(url: contactURL, includes: ["[contacts].website"]))
        #expect(contact.contacts?.compactMap { $0.website?.id } == ["w2", "w3"])
        await #expect {
            try await manager.request(HalleyRequest<Contact>(url: contactURL, includes: ["[contacts"]))
        } throws: { ($0 as? HalleyError)?.code == .invalidInclude }
    }
}
