// swift-format-ignore-file
// (The original README's text, verbatim: the formatter must not touch it.)
import Foundation
import Halley

// The call snippets of the original Halley's README, verbatim but for `try await` where a
// publisher was sunk, each wrapped in a function so the tests can run it.

// MARK: Traversing

/// "Once defined, the requester is used when starting the initial resource request".
func readmeTraversing() async throws -> Contact {
    let resourceManager = ResourceManager(requester: AlamofireRequester())
    let request = HalleyRequest<Contact>(
        url: "https//www.example.com/contact/1",
        includeType: .contactsAndWebsiteOfContacts,
        queryItems: [],
        decoder: JSONDecoder()
    )
    let contact = try await resourceManager
        .request(request)
    return contact
}

// MARK: Templating

func readmeTemplating() {
    DefaultTemplateHandler
        .shared
        .updateTemplate(for: "country_key") { "US" }
}

// MARK: Manual traversing

/// "The example above with contacts and website can be transpiled into".
func readmeManualTraversing() async throws -> Parameters {
    let resourceManager = ResourceManager(requester: AlamofireRequester())
    let dict = try await resourceManager
        .resource(
            from: URL(string: "https//www.example.com/contact/1")!,
            includes: [
                "[contacts]",
                "[contacts].[contacts]",
                "[contacts].website",
                "website"
            ],
            options: .default,
            linkResolver: TemplateLinkResolver(parameters: [:])
        )
    return dict
}

/// The three result types of manual traversal, with `URLLinkResolver`.
func readmeManualTraversingResults(_ url: URL) async throws -> (Parameters, [Parameters], Parameters) {
    let resourceManager = ResourceManager(requester: AlamofireRequester())
    let resource: Parameters = try await resourceManager.resource(
        from: url, includes: ["website"], options: .default, linkResolver: URLLinkResolver())
    let collection: [Parameters] = try await resourceManager.resourceCollection(
        from: url, includes: [], options: .default, linkResolver: URLLinkResolver())
    let page: Parameters = try await resourceManager.resourceCollectionWithMetadata(
        from: url, includes: [], options: .default, linkResolver: URLLinkResolver())
    return (resource, collection, page)
}
