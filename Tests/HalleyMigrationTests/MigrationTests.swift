import Foundation
import Halley
import Testing

/// Code written for the original Halley compiles (the README snippets in this target, built
/// in Swift 5 mode) and means what Halley documents.
///
/// Serialized: the templating tests set values on the process-wide
/// `DefaultTemplateHandler.shared`, which every manager reads.
@Suite(.serialized) struct MigrationTests {
    static let host = "https://halley.example"

    /// Contact 1 knows 2 and 3; each has a website under the README's `webSiteLink` rel,
    /// templated with `{?country_key}`.
    static func registerContacts(prefix: String) {
        for id in 1...3 {
            let others = [1, 2, 3].filter { $0 != id }.map { #"{"href": "\#(prefix)/contacts/\#($0)"}"# }
            StubNetwork.register(
                "\(host)\(prefix)/contacts/\(id)",
                """
                {"_links": {"self": {"href": "\(prefix)/contacts/\(id)"},
                            "contacts": [\(others.joined(separator: ","))],
                            "webSiteLink": {"href": "\(prefix)/contacts/\(id)/website{?country_key}", "templated": true}},
                 "id": "\(id)", "name": "Contact \(id)"}
                """)
            for query in ["", "?country_key=US", "?country_key=HR"] {
                StubNetwork.register(
                    "\(host)\(prefix)/contacts/\(id)/website\(query)",
                    #"{"_links": {"self": {"href": "\#(prefix)/contacts/\#(id)/website"}}, "id": "w\#(id)", "url": "https://site\#(id).example\#(query)"}"#
                )
            }
        }
    }

    // MARK: The README's calls

    @Test func theReadmeRequestWithItsTypoedURLIsATypedError() async throws {
        // The README's URL is "https//www.example.com/contact/1" (no colon): not absolute.
        await #expect {
            _ = try await readmeTraversing()
        } throws: { ($0 as? HalleyError)?.code == .invalidURL }
        await #expect {
            _ = try await readmeManualTraversing()
        } throws: { ($0 as? HalleyError)?.code == .unsupportedScheme || ($0 as? HalleyError)?.code == .invalidURL }
    }

    @Test func theReadmeRequesterAndIncludeListTraverseAndDecode() async throws {
        Self.registerContacts(prefix: "/typed")
        let resourceManager = ResourceManager(requester: AlamofireRequester())
        let request = HalleyRequest<Contact>(
            url: "\(Self.host)/typed/contacts/1",
            includeType: .contactsAndWebsiteOfContacts,
            queryItems: [],
            decoder: JSONDecoder()
        )
        let contact = try await resourceManager.request(request)
        #expect(contact.name == "Contact 1")
        #expect(contact.website?.id == "w1")
        #expect(contact.contacts?.map(\.id) == ["2", "3"])
        #expect(contact.contacts?.map { $0.website?.id } == ["w2", "w3"])
        #expect(contact.contacts?.first?.contacts?.map(\.id) == ["1", "3"])
        #expect(contact._links?.link(for: "webSiteLink")?.templated == true)
    }

    @Test func manualTraversalGivesHalleysThreeResultTypes() async throws {
        Self.registerContacts(prefix: "/manual")
        StubNetwork.register(
            "\(Self.host)/manual/page",
            #"{"_links": {"self": {"href": "/manual/page"}}, "_embedded": {"item": [{"n": 1}, {"n": 2}]}, "page": {"size": 2}}"#
        )
        let (resource, _, _) = try await readmeManualTraversingResults(URL(string: "\(Self.host)/manual/contacts/1")!)
        #expect(resource["name"] as? String == "Contact 1")
        let (_, collection, page) = try await readmeManualTraversingResults(URL(string: "\(Self.host)/manual/page")!)
        #expect(collection.compactMap { $0["n"] as? Int } == [1, 2])
        #expect((page["page"] as? [String: Any])?["size"] as? Int == 2)
        #expect(((page["_embedded"] as? [String: Any])?["item"] as? [Any])?.count == 2)
    }

    // MARK: Templating means the same

    @Test func defaultTemplateHandlerValuesReachEveryManager() async throws {
        Self.registerContacts(prefix: "/global")
        readmeTemplating()  // country_key = US, globally
        defer { DefaultTemplateHandler.shared.removeTemplate(for: "country_key") }
        let manager = ResourceManager(requester: AlamofireRequester())  // no configuration at all
        let contact = try await manager.request(
            HalleyRequest<Contact>(
                url: "\(Self.host)/global/contacts/1", includeType: .website, queryItems: [],
                decoder: JSONDecoder()))
        #expect(contact.website?.url.absoluteString == "https://site1.example?country_key=US")
        #expect(
            StubNetwork.requests(startingWith: "\(Self.host)/global/contacts/1/website") == [
                "\(Self.host)/global/contacts/1/website?country_key=US"
            ])
    }

    @Test func requestQueryItemsAreTemplateValuesNotRootQueryItems() async throws {
        Self.registerContacts(prefix: "/override")
        let manager = ResourceManager(requester: AlamofireRequester())
        let contact = try await manager.request(
            HalleyRequest<Contact>(
                url: "\(Self.host)/override/contacts/1", includeType: .website,
                queryItems: [URLQueryItem(name: "country_key", value: "HR")], decoder: JSONDecoder()))
        #expect(contact.website?.url.absoluteString == "https://site1.example?country_key=HR")
        #expect(
            StubNetwork.requests(startingWith: "\(Self.host)/override/") == [
                "\(Self.host)/override/contacts/1",  // the root is unchanged
                "\(Self.host)/override/contacts/1/website?country_key=HR",
            ])
    }

    @Test func aRequestQueryItemWinsOverTheDefaultTemplateHandler() async throws {
        Self.registerContacts(prefix: "/both")
        DefaultTemplateHandler.shared.updateTemplate(for: "country_key") { "US" }
        defer { DefaultTemplateHandler.shared.removeTemplate(for: "country_key") }
        let contact = try await ResourceManager(requester: AlamofireRequester()).request(
            HalleyRequest<Contact>(
                url: "\(Self.host)/both/contacts/1", includeType: .website,
                queryItems: [URLQueryItem(name: "country_key", value: "HR")], decoder: JSONDecoder()))
        #expect(contact.website?.url.absoluteString == "https://site1.example?country_key=HR")
    }

    @Test func anIncludeQueryItemJoinsTheLinksSameNameItemWithAComma() async throws {
        StubNetwork.register(
            "\(Self.host)/fields/a",
            #"{"_links": {"self": {"href": "/fields/a"}, "b": {"href": "/fields/b?fields=id"}}}"#)
        StubNetwork.register("\(Self.host)/fields/b?fields=id,url", #"{"joined": true}"#)
        let manager = ResourceManager(requester: AlamofireRequester())
        let resolver = TemplateLinkResolver(parameters: ["b": [FieldQueryItem(key: "fields", value: "url")]])
        let result = try await manager.resource(
            from: URL(string: "\(Self.host)/fields/a")!, includes: ["b"], options: .default, linkResolver: resolver)
        #expect((result["b"] as? [String: Any])?["joined"] as? Bool == true)
    }

    // MARK: The model means the same

    @Test func absentLinksAreNilAndTemplatedIsNilWhenUnsaid() throws {
        let resource = try HALResource(parsing: Data(#"{"_links": {"self": {"href": "/a"}}}"#.utf8))
        #expect(resource.links.links(for: "nope") == nil)
        #expect(resource.links.links(for: "self")?.count == 1)
        #expect(resource.links.link(for: "self")?.templated == nil)
        #expect(resource.links.link(for: "self")?.isTemplated == false)
    }

    @Test func fieldQueryItemsCompareByNameAndValue() {
        // Halley compared keys only; see URLQueryItem.init(key:value:) for why we do not.
        #expect(FieldQueryItem(key: "fields", value: "id") != FieldQueryItem(key: "fields", value: "url"))
        #expect(FieldQueryItem(key: "fields", values: ["id", "url"]).value == "id,url")
        #expect(FieldQueryItem(key: "fields", value: "id").key == "fields")
    }

    // MARK: Errors

    @Test func theUnderlyingDecodingErrorIsOneStepAway() async throws {
        StubNetwork.register(
            "\(Self.host)/broken/contact", #"{"_links": {"self": {"href": "/broken/contact"}}, "id": 7}"#)
        do {
            _ = try await ResourceManager(requester: AlamofireRequester()).request(
                HalleyRequest<Contact>(
                    url: "\(Self.host)/broken/contact", includeType: .full, queryItems: [],
                    decoder: JSONDecoder()))
            Issue.record("expected a decoding error")
        } catch let error as HalleyError {
            #expect(error.code == .decoding)
            #expect(error.underlying is DecodingError, "Halley handed back the DecodingError itself")
        }
    }

    @Test func cancellingCancelsTheAlamofireRequest() async throws {
        let requester = AlamofireRequester()
        let manager = ResourceManager(requester: requester)
        let task = Task { try await manager.resource(from: URL(string: "\(Self.host)/never")!) }
        task.cancel()
        await #expect(throws: (any Error).self) { try await task.value }
    }
}
